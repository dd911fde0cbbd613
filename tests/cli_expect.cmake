# Helpers of the command-line tests run with `cmake -P` (analysis/*_cli.cmake, cli/numbers.cmake).

# Runs a command and fails unless it exits with `code`; its output is left in last_out/last_err.
function(expect_exit code)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL code)
    message(FATAL_ERROR "expected exit ${code}, got ${rc}: ${ARGN}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
  set(last_err "${err}" PARENT_SCOPE)
endfunction()

# Fails unless `text` contains `what`.
function(expect_contains text what)
  string(FIND "${text}" "${what}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "expected \"${what}\" in:\n${text}")
  endif()
endfunction()

# Fails if `text` contains `what`.
function(expect_not_contains text what)
  string(FIND "${text}" "${what}" pos)
  if(NOT pos EQUAL -1)
    message(FATAL_ERROR "did not expect \"${what}\" in:\n${text}")
  endif()
endfunction()
