from negviz.cli import main

raise SystemExit(main())
