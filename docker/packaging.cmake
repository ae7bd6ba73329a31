# The Debian package: `cmake --build build --target package` (or `cd build && cpack`)
# writes mcpgate_<version>_<arch>.deb; install it with `apt install ./mcpgate_*.deb`.
# It holds the binary and its sandbox init, the rule packs, the example config
# (a conffile), its example server and the systemd unit.
include(GNUInstallDirs)
install(FILES ${PROJECT_SOURCE_DIR}/docker/mcpgate.service
              ${PROJECT_SOURCE_DIR}/docker/mcpgate-spawner.service
        DESTINATION lib/systemd/system COMPONENT deb)
install(FILES ${PROJECT_SOURCE_DIR}/docker/deb/mcpgate.yaml
        DESTINATION /etc/mcpgate COMPONENT deb)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/docker/deb/echo_server.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mcpgate/examples COMPONENT deb)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mcpgate)
set(CPACK_PACKAGE_VENDOR mcpgate)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "MCP gateway: DLP on every message, per-tool policy, sandboxed servers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "mcpgate maintainers")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
# Shared-library dependencies from dpkg-shlibdeps; python3 runs the example server.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # RelWithDebInfo: the debug info would be 9 of every 10 bytes
set(CPACK_DEBIAN_PACKAGE_DEPENDS "passwd, python3")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "nodejs, npm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/docker/deb/postinst)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
