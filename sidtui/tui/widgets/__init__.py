"""One widget per module (Line-API views for the big lists)."""
