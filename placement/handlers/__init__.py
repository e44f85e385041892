"""One module of request handlers per entity of the API."""
