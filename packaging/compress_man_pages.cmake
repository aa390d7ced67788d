# SPDX-License-Identifier: Apache-2.0
# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS): compresses the man pages installed
# into the packages' staging directories, as Debian's policy (12.1) wants, with gzip -9n
# (the same bytes on every build). Whoever installs a page installs it plain; `cmake
# --install` keeps it plain.
cmake_policy(VERSION 3.25)
# GLOB_RECURSE matches wildcards in the file name only: every file, then the man pages.
file(GLOB_RECURSE ipt_man_pages LIST_DIRECTORIES false "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*")
list(FILTER ipt_man_pages INCLUDE REGEX "/share/man/man[1-9]/[^/]+$")
foreach(page IN LISTS ipt_man_pages)
  if(page MATCHES "\\.gz$" OR IS_SYMLINK "${page}")
    continue()
  endif()
  execute_process(COMMAND gzip -9nf "${page}" COMMAND_ERROR_IS_FATAL ANY)
endforeach()
