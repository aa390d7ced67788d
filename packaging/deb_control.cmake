# SPDX-License-Identifier: Apache-2.0
# CPack post-build script (CPACK_POST_BUILD_SCRIPTS): finishes the control part of the
# packages that CPack of CMake 3.25 does not write as Debian wants it:
#  - "Multi-Arch: same" for the packages named in CPACK_IPT_MULTIARCH_SAME (a package
#    whose control file has a Multi-Arch field already is left alone);
#  - no postinst and postrm that only call ldconfig, which CPack adds to every package
#    with a library in /usr/lib: the packages carry the ldconfig trigger instead.
# A package is unpacked and built again with dpkg-deb, its files unchanged.
cmake_policy(VERSION 3.25)
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$")
    continue()
  endif()
  set(dir "${deb}.control")
  file(REMOVE_RECURSE "${dir}")
  execute_process(COMMAND dpkg-deb -R "${deb}" "${dir}" COMMAND_ERROR_IS_FATAL ANY)
  set(changed FALSE)
  file(READ "${dir}/DEBIAN/control" control)
  if(NOT control MATCHES "(^|\n)Package: ([^\n]+)")
    message(FATAL_ERROR "${deb}: no Package field")
  endif()
  set(name ${CMAKE_MATCH_2})
  if(name IN_LIST CPACK_IPT_MULTIARCH_SAME AND NOT control MATCHES "(^|\n)Multi-Arch:")
    string(REGEX REPLACE "\n(Architecture: [^\n]+\n)" "\n\\1Multi-Arch: same\n" control
           "\n${control}")
    string(SUBSTRING "${control}" 1 -1 control)
    if(NOT control MATCHES "\nMulti-Arch: same\n")
      message(FATAL_ERROR "${deb}: no Architecture field")
    endif()
    file(WRITE "${dir}/DEBIAN/control" "${control}")
    set(changed TRUE)
  endif()
  if(EXISTS "${dir}/DEBIAN/triggers")
    foreach(script postinst postrm)
      if(EXISTS "${dir}/DEBIAN/${script}")
        file(STRINGS "${dir}/DEBIAN/${script}" lines)
        list(FILTER lines EXCLUDE REGEX "^(#!/bin/sh|set -e|if \\[ \"\\$1\" = \"(configure|remove)\" \\]; then|[ \t]*ldconfig|fi|)$")
        if(lines STREQUAL "")
          file(REMOVE "${dir}/DEBIAN/${script}")
          set(changed TRUE)
        endif()
      endif()
    endforeach()
  endif()
  if(changed)
    execute_process(COMMAND dpkg-deb --root-owner-group -b "${dir}" "${deb}"
                    OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  endif()
  file(REMOVE_RECURSE "${dir}")
endforeach()
