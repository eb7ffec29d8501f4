# run_program.cmake: run one program and check what it did (the noise
# programs' whole runs, the Alltoall checker's corruption run).
#   COMMAND          the command, items separated by "|"
#   EXPECT_CODE      its exit code
#   EXPECT_LINES     "regex=count|regex=count": stdout lines matching each regex
#                    (anchored at the line start) and how many
#   EXPECT_ERR_LINES the same for stderr lines
#   EXPECT_STDERR    text that must open the one and only stderr line
#   EXPECT_FILES     globs ("|" between them) that must each match a file
#   CLEAN_DIR        removed before the run, so that EXPECT_FILES can only be
#                    met by files this run wrote (the noise probe accepts an
#                    existing directory)
string(REPLACE "|" ";" command "${COMMAND}")
if(CLEAN_DIR)
  file(REMOVE_RECURSE "${CLEAN_DIR}")
  if(EXISTS "${CLEAN_DIR}")
    message(FATAL_ERROR "cannot remove ${CLEAN_DIR} before the run")
  endif()
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 100)
set(failed "")
if(NOT "${code}" STREQUAL "${EXPECT_CODE}")
  string(APPEND failed "exit code ${code}, expected ${EXPECT_CODE}\n")
endif()

# Lines of `text` matching each "regex=count" of `checks` ("|" between them).
function(count_lines stream text checks)
  string(REPLACE "\n" ";" lines "${text}")
  string(REPLACE "|" ";" checks "${checks}")
  foreach(check ${checks})
    string(FIND "${check}" "=" eq REVERSE)
    string(SUBSTRING "${check}" 0 ${eq} regex)
    math(EXPR after "${eq} + 1")
    string(SUBSTRING "${check}" ${after} -1 want)
    set(n 0)
    foreach(line ${lines})
      if(line MATCHES "^${regex}")
        math(EXPR n "${n} + 1")
      endif()
    endforeach()
    if(NOT n EQUAL want)
      string(APPEND failed "${n} ${stream} line(s) match '${regex}', expected ${want}\n")
    endif()
  endforeach()
  set(failed "${failed}" PARENT_SCOPE)
endfunction()

if(EXPECT_LINES)
  count_lines(stdout "${out}" "${EXPECT_LINES}")
endif()
if(EXPECT_ERR_LINES)
  count_lines(stderr "${err}" "${EXPECT_ERR_LINES}")
endif()
if(EXPECT_STDERR)
  string(STRIP "${err}" err_text)
  string(REPLACE "\n" ";" err_lines "${err_text}")
  list(LENGTH err_lines n_err)
  string(FIND "${err_text}" "${EXPECT_STDERR}" at)
  if(NOT n_err EQUAL 1 OR NOT at EQUAL 0)
    string(APPEND failed "stderr should be one line opening with '${EXPECT_STDERR}'\n")
  endif()
endif()
string(REPLACE "|" ";" globs "${EXPECT_FILES}")
foreach(glob ${globs})
  file(GLOB found "${glob}")
  if(NOT found)
    string(APPEND failed "no file matches ${glob}\n")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}--- command: ${command}\n--- stdout:\n${out}--- stderr:\n${err}")
endif()
message(STATUS "ok: ${command}")
