//! Unit tests of the fio reader on the fixtures.
