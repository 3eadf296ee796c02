"""Tiempo's Discord side: the /tiempo command group, storage and the entry point."""
