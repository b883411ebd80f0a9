from revetly_mcp.server import main

main()
