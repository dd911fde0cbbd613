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

# Without --out, run writes results/<scenario file name without extension>/ in the working folder,
# and the embedded default scenario results/default/ (issue 51: the README's folder).
get_filename_component(stem ${SCENARIO} NAME_WE)
file(MAKE_DIRECTORY ${OUT}/default-out)
execute_process(COMMAND ${T9KSIM} run ${SCENARIO} --quiet --no-report
                WORKING_DIRECTORY ${OUT}/default-out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS ${OUT}/default-out/results/${stem}/summary.json)
  message(FATAL_ERROR "run without --out (${rc}) did not write results/${stem}/summary.json")
endif()
execute_process(COMMAND ${T9KSIM} run --help OUTPUT_VARIABLE help)
if(NOT help MATCHES "results/default")
  message(FATAL_ERROR "run --help does not name results/default as the embedded scenario's folder")
endif()

# Replications on the console: each figure in its unit, no e-notation (issue 51: the first run).
execute_process(COMMAND ${T9KSIM} run ${SCENARIO} -r 2 --no-report -o ${OUT}/console
                OUTPUT_VARIABLE console RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT console MATCHES "wait_p90_s +[0-9.,]+ (s|min|h|d) ± [0-9.,]+ (s|min|h|d) \\(95 % CI\\)"
   OR NOT console MATCHES "utilization_allocated +[0-9.]+ % ± " OR console MATCHES "[0-9]e[+-][0-9]")
  message(FATAL_ERROR "replications' console lines lack units (${rc}):\n${console}")
endif()
