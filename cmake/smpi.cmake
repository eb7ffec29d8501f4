# The build for SimGrid SMPI (CC=smpicc, -DMPISCOPE_SMPI=ON): mpiscope-bench
# only, with the engine and every op linked in statically. SMPI copies the
# program once per simulated rank (dlopen privatization), which gives each
# rank its own globals; a shared libmpiscope would be loaded once and its
# globals (the timer, the buffer pool) shared by all ranks.
#
# smpicc already compiles with -fPIC and links the program as a shared
# object (-shared -lsimgrid -Wl,-z,defs) that smpirun's smpimain loads.
# SMPI_NO_OVERRIDE_MALLOC: smpicc's forced header turns free(x) into a macro,
# which would rewrite every op's free hook (op->free(...)); the engine needs
# no shared (folded) allocation.
target_compile_definitions(mpiscope_objects PUBLIC MPISCOPE_SMPI SMPI_NO_OVERRIDE_MALLOC)
# SMPI 3.32 declares MPI_Compare_and_swap's compare buffer without const.
target_compile_options(mpiscope_objects PRIVATE -Wno-discarded-qualifiers)

file(GLOB MPISCOPE_BENCH_SOURCES CONFIGURE_DEPENDS src/bench/*.c)
add_executable(mpiscope-bench ${MPISCOPE_BENCH_SOURCES} $<TARGET_OBJECTS:mpiscope_objects>)
target_include_directories(mpiscope-bench PRIVATE include)
target_compile_definitions(mpiscope-bench PRIVATE MPISCOPE_SMPI SMPI_NO_OVERRIDE_MALLOC)
target_link_libraries(mpiscope-bench PRIVATE m)

# For SMPI applications that measure with the engine: the same objects as a
# static archive, linked into the program (never shared, for the reason above).
add_library(mpiscope STATIC $<TARGET_OBJECTS:mpiscope_objects>)
target_link_libraries(mpiscope PUBLIC m)

# The Alltoall lab's contention experiment, linked the same way.
set(MPISCOPE_CONTENTION_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/alltoall/programs)
add_executable(mpiscope-contention ${MPISCOPE_CONTENTION_DIR}/contention.c
  ${MPISCOPE_CONTENTION_DIR}/contention_options.c ${MPISCOPE_CONTENTION_DIR}/contention_output.c)
target_include_directories(mpiscope-contention PRIVATE include)
target_compile_definitions(mpiscope-contention PRIVATE MPISCOPE_SMPI SMPI_NO_OVERRIDE_MALLOC)
target_link_libraries(mpiscope-contention PRIVATE mpiscope)

include(GNUInstallDirs)
install(TARGETS mpiscope-contention RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mpiscope-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS mpiscope ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/mpiscope DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Its profile (implementation smpi, launcher smpirun): chosen only by
# --launcher smpi (docs/simulation.md).
find_program(MPISCOPE_MPIEXEC NAMES smpirun)
if(NOT MPISCOPE_MPIEXEC)
  message(FATAL_ERROR "no smpirun on the PATH (SimGrid: apt-get install libsimgrid-dev)")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/mpi-profile.cmake)
mpiscope_write_profile(smpi "${MPISCOPE_MPIEXEC}" "")
