"""HTTP routes of the verification API, one module per resource."""
