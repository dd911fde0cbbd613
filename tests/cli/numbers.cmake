# Numbers on the command line (docs/reliability.md "Numbers on the command line"): every numeric
# option takes decimal digits within a documented limit and refuses anything else with exit 2,
# naming the option and the text, before anything runs. CLI11 alone read "-1" as 2^64 - 1 and
# "010" as octal.
# Inputs: T9KSIM, SCENARIO (any small scenario), TRACE (the Philly csv), OUT.
include(${CMAKE_CURRENT_LIST_DIR}/../cli_expect.cmake)
file(REMOVE_RECURSE ${OUT})

# refuse(OPTION EXPECTED ARGS...): exit 2, stderr names OPTION and says EXPECTED, no results written.
function(refuse option expected)
  expect_exit(2 ${T9KSIM} ${ARGN})
  expect_contains("${last_err}" "${option}")
  expect_contains("${last_err}" "${expected}")
  if(EXISTS ${OUT}/refused)
    message(FATAL_ERROR "a refused command wrote ${OUT}/refused: ${ARGN}")
  endif()
endfunction()

set(o -o ${OUT}/refused)
set(reps "expected a whole number in 1..100000")
refuse(--replications "${reps} (decimal digits), got '-1'" run ${SCENARIO} -r -1 ${o})
refuse(--replications "${reps}, got 0" run ${SCENARIO} -r 0 ${o})
refuse(--replications "${reps}, got 100001" run ${SCENARIO} -r 100001 ${o})
refuse(--replications "${reps}, got 18446744073709551616" run ${SCENARIO} -r 18446744073709551616 ${o})
refuse(--replications "${reps}" compare ${SCENARIO} -r -1 ${o})
refuse(--replications "${reps}" sweep ${SCENARIO} --vary horizon=1h,2h -r 0 ${o})
refuse(--replications "${reps}" size ${SCENARIO} --param horizon=1:2 --target "wait_p90 < 1h" -r 1e3 ${o})
refuse(--seed "expected a whole number in 0..18446744073709551615 (decimal digits), got '-1'" run ${SCENARIO} --seed -1 ${o})
refuse(--seed "got '0x10'" run ${SCENARIO} --seed 0x10 ${o})
refuse(--seed "expected a whole number" selfcheck --seed -1)
refuse(--first-replication "expected a whole number in 0..1000000000" run ${SCENARIO} --first-replication -5 ${o})
refuse(--threads "expected a whole number in 0..1024, got 2000" run ${SCENARIO} -j 2000 ${o})
refuse(--threads "expected a whole number in 0..1024" test ${SCENARIO} -j -1)
refuse(--replication "expected a whole number in 0..1000000000" generate ${SCENARIO} --replication -1 ${o})
# Control characters in the offending text are escaped.
refuse(--threads "got '1\\x0a2'" run ${SCENARIO} "-j" "1\n2" ${o})
# import: counts and fractions.
set(imp import ${TRACE} --format philly ${o})
refuse(--sample "expected a number in (0, 1], got 0" ${imp} --sample 0)
refuse(--sample "expected a number in (0, 1], got 1.5" ${imp} --sample 1.5)
refuse(--sample "got 'nan'" ${imp} --sample nan)
refuse(--load-factor "expected a number in [1e-06, 1000000], got 1e-300" ${imp} --load-factor 1e-300)
refuse(--limit "expected a whole number in 1..100000000, got 0" ${imp} --limit 0)
refuse(--nodes "expected a whole number in 1..1000000" ${imp} --nodes -3)
refuse(--gpus-per-node "expected a whole number in 0..1024, got 2048" ${imp} --gpus-per-node 2048)

# Accepted: leading zeros are decimal (010 is ten, not octal eight).
expect_exit(0 ${T9KSIM} run ${SCENARIO} --seed 010 -r 1 --no-report --quiet -o ${OUT}/ten)
file(READ ${OUT}/ten/summary.json summary)
expect_contains("${summary}" "\"seed\": 10,")
