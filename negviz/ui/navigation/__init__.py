"""Navigation: the page registry and what each entry says, links to pages with their URL state,
the sidebar's pickers, the router's URL check and kind guard, links to stored runs."""
