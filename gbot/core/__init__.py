"""Numba-accelerated rules core: board layout, move generation, network inputs."""
