//! "Did you mean" for misspelt names. VM sizes are offered only among sizes of the storage
//! class the name says (`Catalog::vm`'s suggestion): the candidates are chosen there, the
//! closest of them here.

/// The candidate closest to `input` (case-insensitive), when it is close enough to be a
/// likely slip: an edit distance of at most a third of the longer name, and at least one.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let input = input.to_ascii_lowercase();
    let len = input.chars().count();
    // Closest first; between equally close ones, the one of the same length (`P3O` -> `P30`,
    // not `P3`).
    let mut best: Option<((usize, usize), &'a str)> = None;
    for cand in candidates {
        let d = strsim::damerau_levenshtein(&input, &cand.to_ascii_lowercase());
        let clen = cand.chars().count();
        let limit = (len.max(clen) / 3).max(1);
        let rank = (d, len.abs_diff(clen));
        if d <= limit && best.is_none_or(|(br, _)| rank < br) {
            best = Some((rank, cand));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_close_names_only() {
        let c = ["ReadOnly", "ReadWrite", "None"];
        assert_eq!(did_you_mean("readonyl", c), Some("ReadOnly"));
        assert_eq!(did_you_mean("Nnoe", c), Some("None"));
        assert_eq!(did_you_mean("WriteBack", c), None);
    }
}
