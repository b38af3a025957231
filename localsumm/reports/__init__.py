"""Reports of results: the terminal view of one result, and the HTML page of a results file."""
