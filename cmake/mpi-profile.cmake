# The MPI profile the command line reads (python/mpiscope/mpi_profile.py):
# which MPI this tree is built with, its launcher, and where the programs
# are, installed as share/mpiscope/mpi/<name>.json. The programs' paths are
# relative to the install prefix (the profile's own prefix: a wheel lands in
# any environment). The MPI's paths are absolute, unless it is a PyPI wheel
# installed into the same environment (the build backend sets
# MPISCOPE_PROFILE_MPI_RELATIVE), when they are relative to that prefix too.
# A wheel also carries it as <name>.dist-info/mpi-profile.json.
#
#   mpiscope_write_profile(<implementation> <mpiexec> <tracer>)
#
# <implementation>: mpich, openmpi, other or smpi; <tracer>: the tracer
# library's path under the prefix, or "" when this build has none.
set(MPISCOPE_MPI_NAME "" CACHE STRING "The MPI profile's name (default: the implementation)")
set(MPISCOPE_MPI_WHEEL "" CACHE STRING
  "The PyPI wheel of the MPI, 'NAME VERSION' (set by the pip build backend), or empty")
option(MPISCOPE_PROFILE_MPI_RELATIVE
  "The MPI is a wheel installed into the same prefix: record its paths relative to it" OFF)

function(mpiscope__json_value out value)
  string(REPLACE "\\" "\\\\" value "${value}")
  string(REPLACE "\"" "\\\"" value "${value}")
  set(${out} "\"${value}\"" PARENT_SCOPE)
endfunction()

function(mpiscope_write_profile implementation mpiexec tracer)
  set(name "${MPISCOPE_MPI_NAME}")
  if(NOT name)
    set(name "${implementation}")
  endif()
  if(NOT name MATCHES "^[A-Za-z0-9][A-Za-z0-9._-]*$")
    message(FATAL_ERROR "MPISCOPE_MPI_NAME=${name}: letters, digits, '.', '_' and '-' only")
  endif()
  set(mpicc "${CMAKE_C_COMPILER}")
  get_filename_component(bin_dir "${mpicc}" DIRECTORY)
  get_filename_component(prefix "${bin_dir}" DIRECTORY)
  if(MPISCOPE_PROFILE_MPI_RELATIVE)
    file(RELATIVE_PATH mpicc "${prefix}" "${mpicc}")
    file(RELATIVE_PATH mpiexec "${prefix}" "${mpiexec}")
    set(prefix ".")
  endif()
  set(fields)
  foreach(pair "name;${name}" "implementation;${implementation}" "prefix;${prefix}"
      "mpicc;${mpicc}" "mpiexec;${mpiexec}" "bench;${CMAKE_INSTALL_BINDIR}/mpiscope-bench"
      "tracer;${tracer}" "mpi_wheel;${MPISCOPE_MPI_WHEEL}")
    list(GET pair 0 key)
    list(LENGTH pair n)
    set(value "")
    if(n GREATER 1)
      list(GET pair 1 value)
    endif()
    mpiscope__json_value(value "${value}")
    list(APPEND fields "\"${key}\": ${value}")
  endforeach()
  string(JOIN ", " body ${fields})
  set(file "${CMAKE_CURRENT_BINARY_DIR}/mpi-profile/${name}.json")
  file(WRITE "${file}.new" "{${body}}\n")
  configure_file("${file}.new" "${file}" COPYONLY) # rewritten only when it changes
  install(FILES "${file}" DESTINATION share/mpiscope/mpi)
  if(DEFINED SKBUILD_METADATA_DIR) # a wheel says which MPI it links in its metadata too
    install(FILES "${file}" DESTINATION "${SKBUILD_METADATA_DIR}" RENAME mpi-profile.json)
  endif()
  message(STATUS "MPI profile ${name}: ${implementation}, mpiexec ${mpiexec}")
endfunction()
