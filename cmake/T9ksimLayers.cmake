# The layer rules, enforced by the build (docs/architecture.md "Layers"): a library exposes only
# its public headers, and only to the targets that link it, so an include against the layer
# order fails to compile ("No such file or directory").
#
#   t9ksim_expose(TARGET FOLDER [PRIVATE_HEADERS h...])
#
# Public: a folder of links to FOLDER's headers, except detail/ and PRIVATE_HEADERS, at their
# paths ("scenarios/format/scenario.hpp"), added to TARGET's PUBLIC include directories; a target
# sees it only by linking TARGET (directly or through a library that links it publicly).
# Private: a link to the whole FOLDER, for TARGET's own sources (and the white-box test suites,
# t9ksim_add_test_suite), recorded in the target property T9KSIM_PRIVATE_INCLUDE.
function(t9ksim_expose target folder)
  cmake_parse_arguments(ARG "" "" "PRIVATE_HEADERS" ${ARGN})
  set(src ${PROJECT_SOURCE_DIR}/${folder})
  set(pub ${CMAKE_BINARY_DIR}/layers/${target}/public)
  set(priv ${CMAKE_BINARY_DIR}/layers/${target}/private)
  file(REMOVE_RECURSE ${pub} ${priv})
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE ${src} ${src}/*.hpp)
  foreach(h IN LISTS headers)
    if(h MATCHES "^detail/" OR h IN_LIST ARG_PRIVATE_HEADERS)
      continue()
    endif()
    get_filename_component(dir ${pub}/${folder}/${h} DIRECTORY)
    file(MAKE_DIRECTORY ${dir})
    file(CREATE_LINK ${src}/${h} ${pub}/${folder}/${h} SYMBOLIC)
  endforeach()
  file(MAKE_DIRECTORY ${pub})
  get_filename_component(dir ${priv}/${folder} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  file(CREATE_LINK ${src} ${priv}/${folder} SYMBOLIC)
  target_include_directories(${target} PUBLIC ${pub} PRIVATE ${priv})
  set_target_properties(${target} PROPERTIES T9KSIM_PRIVATE_INCLUDE ${priv})
endfunction()
