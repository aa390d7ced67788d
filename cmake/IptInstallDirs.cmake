# SPDX-License-Identifier: Apache-2.0
# Installation directories: GNUInstallDirs, with Debian's multiarch library directory
# (lib/<triplet>, e.g. lib/x86_64-linux-gnu) for every prefix on Debian and its
# derivatives. GNUInstallDirs picks it only for the prefix /usr, but the Debian packages
# are made (cpack, prefix /usr) from the same configuration as `cmake --install` (default
# prefix /usr/local), and Debian's loader, pkg-config and CMake search lib/<triplet> under
# /usr/local too. Everything installed finds the library relative to itself, so any
# prefix works. -DCMAKE_INSTALL_LIBDIR=... still chooses another directory.
if(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS /etc/debian_version)
  set(ipt_multiarch_libdir lib/${CMAKE_LIBRARY_ARCHITECTURE})
  # IPT_LIBDIR_CHOSEN: a build directory configured before this file existed holds the
  # plain "lib" GNUInstallDirs chose for /usr/local; that default is replaced once, a
  # directory the user gives is kept.
  if(NOT DEFINED CMAKE_INSTALL_LIBDIR
     OR (NOT DEFINED IPT_LIBDIR_CHOSEN AND DEFINED _GNUInstallDirs_LAST_CMAKE_INSTALL_PREFIX
         AND CMAKE_INSTALL_LIBDIR STREQUAL "lib"))
    set(CMAKE_INSTALL_LIBDIR ${ipt_multiarch_libdir} CACHE PATH
        "Object code libraries (${ipt_multiarch_libdir})" FORCE)
  endif()
  set(IPT_LIBDIR_CHOSEN ON CACHE INTERNAL "CMAKE_INSTALL_LIBDIR was chosen by IptInstallDirs or the user")
endif()
include(GNUInstallDirs)
