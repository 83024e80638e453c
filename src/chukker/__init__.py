"""chukker: the USPA arena polo rules made executable."""

__version__ = "0.1.0"
