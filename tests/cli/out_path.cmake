# The outputs do not depend on the --out path as typed (issue 17 item 7, docs/reliability.md):
# the same scenario and seed run into a relative and an absolute folder, once with one run and
# once with replications, give byte-identical files (report.html named the folder as typed).
# Inputs: T9KSIM, SCENARIO, OUT (absolute). Runs in OUT's parent for the relative path.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
foreach(reps 1 2)
  execute_process(COMMAND ${T9KSIM} run ${SCENARIO} -r ${reps} --quiet -o rel-${reps}
                  WORKING_DIRECTORY ${OUT} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run into a relative folder failed (${rc})")
  endif()
  expect_exit(0 ${T9KSIM} run ${SCENARIO} -r ${reps} --quiet -o ${OUT}/nested/./abs-${reps})
  file(GLOB_RECURSE files RELATIVE ${OUT}/rel-${reps} ${OUT}/rel-${reps}/*)
  list(LENGTH files n)
  if(n LESS 5)
    message(FATAL_ERROR "expected the run's files in ${OUT}/rel-${reps}, found: ${files}")
  endif()
  foreach(f ${files})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/rel-${reps}/${f} ${OUT}/nested/abs-${reps}/${f}
                    RESULT_VARIABLE same)
    if(NOT same EQUAL 0)
      message(FATAL_ERROR "${f} differs between -o rel-${reps} and -o ${OUT}/nested/./abs-${reps}")
    endif()
  endforeach()
endforeach()
