"""An independent implementation of the OpenStack Placement API."""
