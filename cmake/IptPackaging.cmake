# SPDX-License-Identifier: Apache-2.0
# Debian packages with CPack (cpack -G DEB in the build directory), one per install
# component (cmake/IptInstall.cmake), installed under /usr, libraries in the multiarch
# directory (cmake/IptInstallDirs.cmake):
#   libipt-transpose1              runtime              libipt.so.1
#   libipt-transpose-dev           development          headers, libipt.so, ipt.pc, the
#                                                       CMake package, docs and examples
#   libipt-transpose-fortran1      fortran              libipt_fortran.so.1
#   libipt-transpose-fortran-dev   fortran_development  ipt.mod, libipt_fortran.so
#   libipt-transpose-mpi1          mpi                  libipt_mpi.so.1
#   libipt-transpose-mpi-fortran1  mpi_fortran          libipt_mpi_fortran.so.1
#   libipt-transpose-mpi-dev       mpi_development      ipt_mpi.h(pp), ipt_mpi.mod,
#                                                       the .so links, ipt-mpi.pc
#   ipt-tools                      tools                ipt-demo, ipt-plan, ipt-bench, ...
#   python3-ipt                    python               the ipt package (pyopencl)
#
# Names: Debian already has libipt2 and libipt-dev, Intel's Processor Trace decoder (gdb
# depends on libipt2). A package of ours named like one of theirs is, to apt, an older
# version of theirs: apt offers to "upgrade" it and removes our files. So every name here
# is one Debian does not use ("libipt-transpose" says what this libipt does); checked with
# apt-cache policy and apt-cache search on Debian 12. Each library package is named after
# its SONAME (policy 8.1: libipt.so.1 -> libipt-transpose1, with the library's version
# in it, so that a future libipt.so.2 can be installed beside it).
#
# The one real clash: Intel's libipt-dev ships /usr/lib/<triplet>/libipt.so (-> its
# libipt.so.2), and so does our -dev package (-> libipt.so.1); `-lipt` can only mean one
# library. The clash is permanent and between unrelated packages, not a file moving from
# one package to another, so it is declared with Conflicts (policy 7.4, 10.1), not
# Breaks + Replaces (7.6, for files that moved): apt then removes one -dev package before
# installing the other, instead of letting one overwrite the other's file. The runtime
# packages do not clash (libipt.so.1 and libipt.so.2 live side by side), so gdb and
# libipt2 install next to all of ours.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libipt-transpose)
set(CPACK_PACKAGE_VENDOR "libipt developers")
set(CPACK_PACKAGE_CONTACT "libipt developers <libipt@users.noreply.github.com>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
# Each package has a synopsis of its own, the first line of its description below; CPack
# would put this summary before it unless it is CPack's default.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The library packages' shlibs files and ldconfig triggers are written below: CPack's
# own (CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS) call ldconfig from maintainer scripts, which
# Debian replaced with the trigger.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The packages depend on each other's libraries (named in their Depends below):
# dpkg-shlibdeps finds them in the build tree.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/src"
    "${PROJECT_BINARY_DIR}/fortran" "${PROJECT_BINARY_DIR}/mpi")
# Man pages compressed, as Debian's policy (12.1) wants them, whoever installs them.
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/packaging/compress_man_pages.cmake)
# The control parts that CPack cannot write: Multi-Arch: same for the library packages
# and libipt-transpose-dev (their files are the same on every architecture or in the
# architecture's own directory, so that, say, the amd64 and i386 libraries install side
# by side), and no maintainer scripts that call ldconfig.
set(CPACK_POST_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/packaging/deb_control.cmake)

set(ipt_v "${PROJECT_VERSION}")
set(ipt_long_common "libipt transposes a matrix in place in an OpenCL buffer, on GPUs and other\nOpenCL devices, with a few percent of the matrix as scratch memory.")
# component, package name, section, Multi-Arch, synopsis, long description (lines of at
# most 79 characters), depends
macro(ipt_deb component name section multiarch synopsis long depends)
  string(TOUPPER ${component} ipt_c)
  list(APPEND CPACK_COMPONENTS_ALL ${component})
  set(CPACK_DEBIAN_${ipt_c}_PACKAGE_NAME ${name})
  set(CPACK_DEBIAN_${ipt_c}_PACKAGE_SECTION ${section})
  if("${multiarch}" STREQUAL "same")
    set(CPACK_DEBIAN_${ipt_c}_PACKAGE_MULTIARCH same)
    list(APPEND CPACK_IPT_MULTIARCH_SAME ${name})
  endif()
  set(CPACK_DEBIAN_${ipt_c}_DESCRIPTION "${synopsis}\n${ipt_long_common}\n.\n${long}")
  set(CPACK_DEBIAN_${ipt_c}_PACKAGE_DEPENDS "${depends}")
  list(APPEND ipt_deb_names ${name})
  set(ipt_deb_component_${name} ${component})
endmacro()
# A library package's shlibs file (which package provides lib<library>.so.<major>, for
# dpkg-shlibdeps of programs built against it) and its ldconfig trigger.
function(ipt_deb_library component name library)
  string(TOUPPER ${component} c)
  set(dir ${PROJECT_BINARY_DIR}/packaging/${name})
  file(WRITE ${dir}/shlibs "lib${library} ${PROJECT_VERSION_MAJOR} ${name} (>= ${PROJECT_VERSION})\n")
  file(WRITE ${dir}/triggers "activate-noawait ldconfig\n")
  set(CPACK_DEBIAN_${c}_PACKAGE_CONTROL_EXTRA ${dir}/shlibs ${dir}/triggers PARENT_SCOPE)
endfunction()
set(CPACK_COMPONENTS_ALL "")
set(CPACK_IPT_MULTIARCH_SAME "")
set(ipt_deb_names "")

ipt_deb(runtime libipt-transpose1 libs same
  "in-place matrix transposition on OpenCL devices - library"
  "This package holds the shared library libipt.so.1, for programs in C, C++ and\nPython." "")
ipt_deb_library(runtime libipt-transpose1 ipt)
ipt_deb(development libipt-transpose-dev libdevel same
  "in-place matrix transposition on OpenCL devices - development files"
  "This package holds the C and C++ headers, the libipt.so link, the pkg-config\nfile ipt.pc, the CMake package (find_package(ipt)), the documentation and the\nexamples.\n.\nIt conflicts with Intel's Processor Trace libipt-dev, which ships libipt.so\ntoo."
  "libipt-transpose1 (= ${ipt_v}), ocl-icd-opencl-dev | opencl-dev, opencl-clhpp-headers")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_CONFLICTS "libipt-dev")
if(IPT_BUILD_FORTRAN)
  ipt_deb(fortran libipt-transpose-fortran1 libs same
    "in-place matrix transposition on OpenCL devices - Fortran library"
    "This package holds libipt_fortran.so.1, the library behind the Fortran module\nipt."
    "libipt-transpose1 (= ${ipt_v})")
  ipt_deb_library(fortran libipt-transpose-fortran1 ipt_fortran)
  # Not Multi-Arch: same, like the MPI development package: the compiled Fortran modules
  # in /usr/include/ipt may differ from one architecture to another.
  ipt_deb(fortran_development libipt-transpose-fortran-dev libdevel ""
    "in-place matrix transposition on OpenCL devices - Fortran module"
    "This package holds the Fortran module ipt (ipt.mod, built with GNU Fortran\n${CMAKE_Fortran_COMPILER_VERSION}), the libipt_fortran.so link and its CMake\ntargets (ipt::ipt_fortran)."
    "libipt-transpose-dev (= ${ipt_v}), libipt-transpose-fortran1 (= ${ipt_v})")
endif()
if(TARGET ipt_mpi)
  ipt_deb(mpi libipt-transpose-mpi1 libs same
    "in-place matrix transposition on OpenCL devices - MPI library"
    "This package holds libipt_mpi.so.1, which transposes a matrix distributed over\nMPI ranks."
    "libipt-transpose1 (= ${ipt_v})")
  ipt_deb_library(mpi libipt-transpose-mpi1 ipt_mpi)
  set(ipt_mpi_dev_depends "libipt-transpose-dev (= ${ipt_v}), libipt-transpose-mpi1 (= ${ipt_v}), mpi-default-dev")
  if(TARGET ipt_mpi_fortran)
    ipt_deb(mpi_fortran libipt-transpose-mpi-fortran1 libs same
      "in-place matrix transposition on OpenCL devices - MPI Fortran library"
      "This package holds libipt_mpi_fortran.so.1, the library behind the Fortran\nmodule ipt_mpi."
      "libipt-transpose-fortran1 (= ${ipt_v}), libipt-transpose-mpi1 (= ${ipt_v})")
    ipt_deb_library(mpi_fortran libipt-transpose-mpi-fortran1 ipt_mpi_fortran)
    string(APPEND ipt_mpi_dev_depends ", libipt-transpose-mpi-fortran1 (= ${ipt_v}), libipt-transpose-fortran-dev (= ${ipt_v})")
  endif()
  ipt_deb(mpi_development libipt-transpose-mpi-dev libdevel ""
    "in-place matrix transposition on OpenCL devices - MPI development files"
    "This package holds the headers ipt_mpi.h and ipt_mpi.hpp, the Fortran module\nipt_mpi, the library links, the pkg-config file ipt-mpi.pc and the CMake\ntargets of find_package(ipt COMPONENTS mpi)."
    "${ipt_mpi_dev_depends}")
endif()
if(IPT_BUILD_TOOLS)
  set(ipt_tools_depends "libipt-transpose1 (= ${ipt_v})")
  if(TARGET ipt-bench-mpi)
    string(APPEND ipt_tools_depends ", libipt-transpose-mpi1 (= ${ipt_v})")
  endif()
  ipt_deb(tools ipt-tools utils ""
    "in-place matrix transposition on OpenCL devices - tools"
    "This package holds ipt-demo (a transposition, checked), ipt-plan (a plan in\nwords), ipt-bench and ipt-kernel-bench (benchmarks)."
    "${ipt_tools_depends}")
endif()
if(IPT_BUILD_PYTHON)
  # The package loads libipt.so.1 through its C ABI (ctypes): any later 1.x will do.
  ipt_deb(python python3-ipt python ""
    "in-place matrix transposition on OpenCL devices - Python 3"
    "This package holds the Python 3 package ipt: ipt.transpose transposes a\npyopencl array in place."
    "libipt-transpose1 (>= ${ipt_v}), python3:any, python3-pyopencl, python3-numpy")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)
endif()

# What every package holds in /usr/share/doc/<package> (Debian policy 12.5, 12.7): the
# copyright file and the changelog, compressed reproducibly (gzip -n, the same bytes on
# every architecture, as Multi-Arch: same requires); lintian overrides where a package
# has any. Only in the packages: `cmake --install` leaves them out (EXCLUDE_FROM_ALL).
set(ipt_packaging ${PROJECT_SOURCE_DIR}/packaging)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ipt_packaging}/changelog)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/packaging)
execute_process(COMMAND gzip -9nc ${ipt_packaging}/changelog
                OUTPUT_FILE ${PROJECT_BINARY_DIR}/packaging/changelog.gz COMMAND_ERROR_IS_FATAL ANY)
foreach(name IN LISTS ipt_deb_names)
  set(component ${ipt_deb_component_${name}})
  install(FILES ${ipt_packaging}/copyright ${PROJECT_BINARY_DIR}/packaging/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${name} COMPONENT ${component}
          EXCLUDE_FROM_ALL)
  if(EXISTS ${ipt_packaging}/lintian/${name})
    install(FILES ${ipt_packaging}/lintian/${name}
            DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides COMPONENT ${component}
            EXCLUDE_FROM_ALL)
  endif()
endforeach()
# The user documentation and the examples, in the development package. docs/ is read when
# configuring, and again by a build when a page was added or removed (CONFIGURE_DEPENDS).
file(GLOB ipt_doc_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${ipt_doc_pages}
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/libipt-transpose-dev
        COMPONENT development EXCLUDE_FROM_ALL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/libipt-transpose-dev/examples
        COMPONENT development EXCLUDE_FROM_ALL)
include(CPack)
