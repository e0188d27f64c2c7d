//! End-to-end tests of `advisor serve`: the real binary on a free loopback port.
