# The architecture test CTest runs (issue 28): the folders and the links are the ones docs/architecture.md
# shows.
#   cmake -DSOURCE_DIR=<repo> -DLINKS=<build>/architecture-links.txt -P scripts/check-architecture.cmake
# Fails when
#  - a source file sits at the top of core/ or ui/ (each belongs to one library's folder);
#  - a file under core/ includes a Qt header (the core is plain C++ and nlohmann/json);
#  - a library links another that the diagram does not draw, or the diagram draws a link CMake does not make.
# The include paths do the rest: a library finds only the headers of what it links, so an include the
# diagram does not allow fails to compile.
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR OR NOT LINKS)
  message(FATAL_ERROR "check-architecture: pass -DSOURCE_DIR=<repository> -DLINKS=<architecture-links.txt>")
endif()
set(problems)

foreach(top core ui)
  file(GLOB loose "${SOURCE_DIR}/${top}/*.cpp" "${SOURCE_DIR}/${top}/*.h")
  foreach(f IN LISTS loose)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
    list(APPEND problems "${rel} is at the top of ${top}/: move it into the folder of its library")
  endforeach()
endforeach()

file(GLOB_RECURSE core_files "${SOURCE_DIR}/core/*.cpp" "${SOURCE_DIR}/core/*.h")
foreach(f IN LISTS core_files)
  file(STRINGS "${f}" qt REGEX "^[ \t]*#[ \t]*include[ \t]*<Q")
  if(qt)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
    list(GET qt 0 first)
    string(STRIP "${first}" first)
    list(APPEND problems "${rel} includes Qt (${first}): the core has no Qt")
  endif()
endforeach()

# The links CMake made: "trainmem_memory trainmem_model" → "memory model".
file(STRINGS "${LINKS}" made_lines)
set(made)
foreach(l IN LISTS made_lines)
  string(REPLACE "trainmem_" "" l "${l}")
  string(REPLACE " " " --> " l "${l}")
  list(APPEND made "${l}")
endforeach()

# The links the diagram draws: "a --> b" lines in the mermaid block of docs/architecture.md.
set(doc "${SOURCE_DIR}/docs/architecture.md")
file(STRINGS "${doc}" doc_lines)
set(drawn)
set(in_block FALSE)
foreach(l IN LISTS doc_lines)
  if(l MATCHES "^```mermaid")
    set(in_block TRUE)
  elseif(l MATCHES "^```")
    set(in_block FALSE)
  elseif(in_block AND l MATCHES "^[ \t]*([a-z_]+)[ \t]*-->[ \t]*([a-z_]+)[ \t]*$")
    list(APPEND drawn "${CMAKE_MATCH_1} --> ${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT drawn)
  list(APPEND problems "docs/architecture.md draws no link (\"a --> b\" lines in a mermaid block)")
endif()

foreach(link IN LISTS made)
  if(NOT link IN_LIST drawn)
    list(APPEND problems "CMake links ${link}, which docs/architecture.md does not draw")
  endif()
endforeach()
foreach(link IN LISTS drawn)
  if(NOT link IN_LIST made)
    list(APPEND problems "docs/architecture.md draws ${link}, which CMake does not link")
  endif()
endforeach()

if(problems)
  list(JOIN problems "\n  " shown)
  message("check-architecture:\n  ${shown}")
  message(FATAL_ERROR "check-architecture: failed")
endif()
list(LENGTH made n)
list(LENGTH core_files c)
message("check-architecture: ${n} links as drawn, ${c} core files without Qt, no file at the top of core/ or ui/")
