"""The schema: the migrations and function files applied from the package's SQL, and the errors that mean
the schema is missing."""
