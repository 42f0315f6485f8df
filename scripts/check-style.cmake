# The style check CTest runs (issue 12 §3): every C++ file of the repository is already formatted with the
# repository's .clang-format, and Qt's signal keywords are spelt one way (Q_SIGNALS / Q_SLOTS / Q_EMIT; the
# lower-case forms cannot be switched off with QT_NO_KEYWORDS because qcustomplot.h uses them).
#   cmake -DSOURCE_DIR=<repo> [-DCLANG_FORMAT=<exe>] -P scripts/check-style.cmake
# To fix what it reports:  clang-format-14 -i <file>
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check-style: pass -DSOURCE_DIR=<repository>")
endif()
if(NOT CLANG_FORMAT)
  # Debian 12's clang-format is version 14; other versions format a few constructs differently.
  find_program(CLANG_FORMAT NAMES clang-format-14 clang-format)
endif()
if(NOT CLANG_FORMAT)
  message(FATAL_ERROR "check-style: clang-format not found; install it (Debian: apt install clang-format) "
                      "or run scripts/install-deps.sh")
endif()

set(dirs app core ui tests bench fuzz)
set(files)
foreach(d IN LISTS dirs)
  file(GLOB_RECURSE found "${SOURCE_DIR}/${d}/*.cpp" "${SOURCE_DIR}/${d}/*.h")
  list(APPEND files ${found})
endforeach()
list(SORT files)
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "check-style: no C++ files under ${SOURCE_DIR}")
endif()

# One clang-format for every file (1 s; one process per file took 23 s, mostly starting them). It names each
# file it would change in a line "<file>:<line>:<column>: error: code should be clang-formatted".
set(bad)
execute_process(COMMAND "${CLANG_FORMAT}" --style=file --dry-run -Werror ${files}
                WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(REGEX MATCHALL "[^\n]+:[0-9]+:[0-9]+: error: code should be clang-formatted" hits "${err}")
  foreach(hit IN LISTS hits)
    string(REGEX REPLACE ":[0-9]+:[0-9]+: error: code should be clang-formatted$" "" path "${hit}")
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${path}")
    list(APPEND bad "${rel}")
  endforeach()
  list(REMOVE_DUPLICATES bad)
  if(NOT bad)
    message(FATAL_ERROR "check-style: ${CLANG_FORMAT} failed (${rc}) without naming a file:\n${err}")
  endif()
endif()

set(keyword_hits)
foreach(f IN LISTS files)
  file(STRINGS "${f}" lines REGEX "^[ \t]*(signals|slots|public slots|private slots|protected slots)[ \t]*:|(^|[ \t;{])emit[ \t]")
  if(lines)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
    list(APPEND keyword_hits "${rel}")
  endif()
endforeach()

set(failed FALSE)
if(bad)
  list(LENGTH bad n)
  list(JOIN bad "\n  " shown)
  message("check-style: ${n} of ${count} files are not formatted with .clang-format (${CLANG_FORMAT}):\n  ${shown}\n"
          "fix with: ${CLANG_FORMAT} -i <file>")
  set(failed TRUE)
endif()
if(keyword_hits)
  list(JOIN keyword_hits "\n  " shown)
  message("check-style: lower-case Qt keywords (signals/slots/emit); use Q_SIGNALS, Q_SLOTS, Q_EMIT in:\n  ${shown}")
  set(failed TRUE)
endif()
if(failed)
  message(FATAL_ERROR "check-style: failed")
endif()
message("check-style: ${count} files formatted, one signal style")
