# Install rules and the Debian package (cpack -G DEB). Included from the top-level CMakeLists.txt
# after the programs are defined. The package holds the three programs (stripped), a man page
# for each generated from its --help, the desktop entry and icons, the default policy and alert
# rules, and the guides. docs/packaging.md says how to build and install it.
include(GNUInstallDirs)

set(limitscope_programs limitscope-cli limitscope-gateway)
if(TARGET limitscope)
  list(APPEND limitscope_programs limitscope)
endif()
install(TARGETS ${limitscope_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Man pages: one per program, written from the program's own --help after it is linked.
set(limitscope_summary_limitscope "desktop dashboard for the rate limiters in front of AI APIs")
set(limitscope_summary_limitscope-cli "headless limitscope: simulate, probe, replay, sweep, configure limiters")
set(limitscope_summary_limitscope-gateway "rate-limiting gateway for OpenAI-compatible APIs")
set(limitscope_manpages "")
foreach(program ${limitscope_programs})
  set(page ${PROJECT_BINARY_DIR}/man/${program}.1.gz)
  set(others ${limitscope_programs})
  list(REMOVE_ITEM others ${program})
  set(subcommands OFF)
  if(program STREQUAL "limitscope-cli")
    set(subcommands ON)
  endif()
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen
      ${CMAKE_COMMAND} "-DPROGRAM=$<TARGET_FILE:${program}>" -DNAME=${program}
      "-DSUMMARY=${limitscope_summary_${program}}" -DVERSION=${PROJECT_VERSION}
      -DSUBCOMMANDS=${subcommands} "-DSEE_ALSO=${others}" -DOUTPUT=${page}
      -P ${PROJECT_SOURCE_DIR}/cmake/manpage.cmake
    DEPENDS ${program} ${PROJECT_SOURCE_DIR}/cmake/manpage.cmake
    COMMENT "Man page ${program}.1 from its --help"
    VERBATIM)
  list(APPEND limitscope_manpages ${page})
endforeach()
add_custom_target(limitscope_manpages ALL DEPENDS ${limitscope_manpages})
install(FILES ${limitscope_manpages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# Debian wants the changelog compressed, without a time stamp in the gzip header.
set(changelog_gz ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
add_custom_command(OUTPUT ${changelog_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/packaging
  COMMAND sh -c "gzip -9 -n -c '${PROJECT_SOURCE_DIR}/resources/packaging/changelog' > '${changelog_gz}'"
  DEPENDS ${PROJECT_SOURCE_DIR}/resources/packaging/changelog
  VERBATIM)
add_custom_target(limitscope_changelog ALL DEPENDS ${changelog_gz})

install(FILES ${PROJECT_SOURCE_DIR}/resources/packaging/copyright ${changelog_gz}
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/guides
  FILES_MATCHING PATTERN "*.md")
install(FILES ${PROJECT_SOURCE_DIR}/resources/default-policy.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/limitscope)
install(FILES ${PROJECT_SOURCE_DIR}/resources/alerts/default-rules.yml
  DESTINATION ${CMAKE_INSTALL_DATADIR}/limitscope/alerts)

if(TARGET limitscope)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/limitscope.desktop
    DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/limitscope.svg
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  foreach(size 16 32 48 64 128 256)
    install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/limitscope-${size}.png
      DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps
      RENAME limitscope.png)
  endforeach()
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME limitscope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "limitscope developers <developers@limitscope.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "rate-limiter dashboard for AI-API gateways")
# Lines of at most 80 columns (Debian policy for the extended description).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "limitscope shows the rate limiters in front of LLM APIs: bucket levels, window\n"
  "occupancy, 429 rates and quota burn per API key, model and tier, read from the\n"
  "Redis holding live limiter state, a gateway's /metrics or Prometheus, with\n"
  "Prometheus-compatible alerts. Its tuner replays real traffic against candidate\n"
  "settings and applies the chosen one, audited and undoable. It ships a reference\n"
  "rate-limiting gateway and a load generator.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies come from dpkg-shlibdeps. Qt loads its platform plugin at run time,
# which dpkg-shlibdeps cannot see; on Debian 12 the xcb and offscreen plugins are in
# libqt6gui6, which the dashboard links, so nothing needs adding by hand.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "redis-server, redis-tools, prometheus")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
