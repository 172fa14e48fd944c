"""Tooling the tests and benchmarks share: a simulated class, a load generator, a loopback cluster."""
