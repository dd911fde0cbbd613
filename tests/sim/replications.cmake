# Replications in parallel threads give exactly what a sequential run gives.
foreach(threads 1 3)
  execute_process(COMMAND ${T9KSIM} run ${SCENARIO} --replications 3 --threads ${threads} --no-report --quiet
                          --out ${OUT}/threads${threads} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "t9ksim run --threads ${threads} failed with exit code ${rc}")
  endif()
endforeach()
foreach(f summary.json rep-0/jobs.csv rep-1/jobs.csv rep-2/jobs.csv rep-2/summary.json rep-1/timeseries.csv)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/threads1/${f} ${OUT}/threads3/${f} RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "${f} differs between 1 and 3 threads")
  endif()
endforeach()
