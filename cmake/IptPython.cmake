# SPDX-License-Identifier: Apache-2.0
# The Python package's interpreters: IPT_BUILD_PYTHON is turned off without one, and
# IPT_PYTHON_TEST_EXECUTABLE names the interpreter that runs the Python tests and example:
# the first of the interpreter CMake finds and Debian's /usr/bin/python3 that imports
# pyopencl, numpy and pytest. The second is tried because python3-pyopencl installs for
# the system interpreter only, while PATH may find another one first (pyenv, a venv).
# Empty when none does: the tests are then not registered (and a message says so),
# rather than registered to skip or fail for lack of a module.
set(IPT_PYTHON_TEST_EXECUTABLE "")
if(NOT IPT_BUILD_PYTHON)
  return()
endif()
set(IPT_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE STRING
    "Where the ipt Python package is installed, relative to the prefix (Debian's layout: with prefix /usr, Python finds it without PYTHONPATH)")
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "No Python 3 interpreter found: the Python package is not built")
  set(IPT_BUILD_PYTHON OFF)
  return()
endif()
if(NOT IPT_BUILD_TESTS)
  return()
endif()
if(IPT_SANITIZE)
  # libipt built with ASan can only be loaded by a process that loads the ASan runtime
  # first, which python3 does not.
  message(STATUS "Python tests not registered in a sanitized build")
  return()
endif()

set(ipt_python_candidates ${Python3_EXECUTABLE})
if(EXISTS /usr/bin/python3)
  list(APPEND ipt_python_candidates /usr/bin/python3)
endif()
list(REMOVE_DUPLICATES ipt_python_candidates)
foreach(candidate IN LISTS ipt_python_candidates)
  execute_process(COMMAND ${candidate} -c "import pyopencl, numpy, pytest"
                  RESULT_VARIABLE ipt_python_imports OUTPUT_QUIET ERROR_QUIET)
  if(ipt_python_imports EQUAL 0)
    set(IPT_PYTHON_TEST_EXECUTABLE ${candidate})
    break()
  endif()
endforeach()
if(IPT_PYTHON_TEST_EXECUTABLE)
  message(STATUS "Python tests run with ${IPT_PYTHON_TEST_EXECUTABLE}")
else()
  string(REPLACE ";" ", " ipt_python_tried "${ipt_python_candidates}")
  message(WARNING "Python tests NOT registered: none of ${ipt_python_tried} imports "
          "pyopencl, numpy and pytest (Debian: apt-get install python3-pyopencl "
          "python3-numpy python3-pytest, or pass -DPython3_EXECUTABLE=...)")
endif()
