# What `cmake --install` puts where (GNUInstallDirs): every hwt-* tool of
# tools/ into bin/, the man pages of docs/man/ into share/man/manN/, and the
# documentation with the demo capture into share/doc/hwt/. The tools need
# nothing else at run time: the flame graph's script and style are compiled
# in (report/profile/flame_svg_assets.cc), and the libraries they link are
# the system's. tests/install checks an installed tree.

# The tools (hwt_installed_tools: every hwt-* program of tools/).
hwt_installed_tools(_hwt_tools)
install(TARGETS ${_hwt_tools} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Man pages, by section (the file name's suffix).
file(GLOB _hwt_man_pages CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/man/*.[1-9])
foreach(page IN LISTS _hwt_man_pages)
  string(REGEX MATCH "[1-9]$" section "${page}")
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()

# Documentation, and the demo capture with the program it recorded.
file(GLOB _hwt_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES README.md ${_hwt_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES testdata/demo.hwt testdata/programs/demo.c
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# bash completion, one copy per tool name (bash-completion loads a
# command's file by its name), naming every tool.
list(JOIN _hwt_tools " " HWT_TOOLS)
configure_file(${PROJECT_SOURCE_DIR}/scripts/completion/hwt.bash.in
               ${PROJECT_BINARY_DIR}/completion/hwt.bash @ONLY)
foreach(tool IN LISTS _hwt_tools)
  install(FILES ${PROJECT_BINARY_DIR}/completion/hwt.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME ${tool})
endforeach()
