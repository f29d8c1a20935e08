"""The decision maker's view: the HTML report with its charts, and the shortlist as text."""
