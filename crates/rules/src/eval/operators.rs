//! Arithmetic, comparison and logic on numbers, series and three-valued booleans.

use super::*;

impl Env<'_> {
    // ---- operators ----------------------------------------------------------------------

    pub(super) fn binary(&mut self, op: BinaryOp, l: &TExpr, r: &TExpr, whole: &TExpr) -> R<V> {
        match op {
            BinaryOp::And | BinaryOp::Or => return self.logic(op, l, r, whole.ty.series),
            _ => {}
        }
        let a = self.eval(l)?;
        let b = self.eval(r)?;
        match op {
            BinaryOp::Add => num_op(a, b, |x, y| x + y),
            BinaryOp::Sub => num_op(a, b, |x, y| x - y),
            BinaryOp::Mul => num_op(a, b, |x, y| x * y),
            BinaryOp::Div => {
                if let V::Num(y) = b
                    && y == 0.0
                {
                    return missing(format!(
                        "division by zero: `{}` is 0 in `{}`",
                        self.src(r),
                        self.src(whole)
                    ));
                }
                num_op(a, b, |x, y| x / y)
            }
            BinaryOp::Lt => cmp_op(a, b, |x, y| x < y),
            BinaryOp::Le => cmp_op(a, b, |x, y| x <= y),
            BinaryOp::Gt => cmp_op(a, b, |x, y| x > y),
            BinaryOp::Ge => cmp_op(a, b, |x, y| x >= y),
            BinaryOp::Eq | BinaryOp::Ne => {
                let ne = op == BinaryOp::Ne;
                match (a, b) {
                    (a @ (V::Num(_) | V::Nums(_)), b @ (V::Num(_) | V::Nums(_))) => {
                        cmp_op(a, b, move |x, y| approx_eq(x, y) != ne)
                    }
                    (V::Bools(s), V::Bool(y)) | (V::Bool(y), V::Bools(s)) => {
                        Ok(V::Bools(s.map(|x| (x == y) != ne)))
                    }
                    (V::Bools(s), V::Bools(t)) => Ok(V::Bools(s.join(&t, |x, y| (x == y) != ne))),
                    (a, b) => {
                        let eq = match (&a, &b) {
                            (V::Bool(x), V::Bool(y)) => x == y,
                            (V::Text(x), V::Text(y)) => x.eq_ignore_ascii_case(y),
                            (V::Cache(x), V::Cache(y)) => x == y,
                            (V::Role(x), V::Role(y)) => x == y,
                            _ => {
                                return missing(format!(
                                    "cannot compare {} with {}",
                                    a.describe(),
                                    b.describe()
                                ));
                            }
                        };
                        Ok(V::Bool(eq != ne))
                    }
                }
            }
            BinaryOp::And | BinaryOp::Or => missing("internal: logic"),
        }
    }

    /// `and` / `or`: short-circuit, three-valued (a missing side decides nothing). A
    /// deciding scalar beside a bool series is that value at the series' times, so
    /// `share`, `duration` and `sustained` still see how long the capture is; when the
    /// other side is missing it stays a scalar (`false and missing` is false).
    pub(super) fn logic(&mut self, op: BinaryOp, l: &TExpr, r: &TExpr, series: bool) -> R<V> {
        let is_and = op == BinaryOp::And;
        let a = self.eval(l);
        if let Ok(V::Bool(x)) = a
            && x != is_and
        {
            if !series {
                return Ok(V::Bool(x));
            }
            return Ok(match self.eval(r) {
                Ok(V::Bools(s)) => V::Bools(s.map(move |_| x)),
                _ => V::Bool(x),
            });
        }
        let b = self.eval(r);
        match (a, b) {
            (Ok(V::Bool(_)), Ok(V::Bool(y))) => Ok(V::Bool(y)),
            (Ok(V::Bools(s)), Ok(V::Bool(y))) if y != is_and => Ok(V::Bools(s.map(move |_| y))),
            (_, Ok(V::Bool(y))) if y != is_and => Ok(V::Bool(y)),
            (Err(e), _) => Err(e),
            (_, Err(e)) => Err(e),
            (Ok(x), Ok(y)) => {
                let f = move |p: bool, q: bool| if is_and { p && q } else { p || q };
                bool_op(x, y, f)
            }
        }
    }
}

fn approx_eq(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
}

pub(super) fn num_op(a: V, b: V, f: impl Fn(f64, f64) -> f64) -> R<V> {
    match (a, b) {
        (V::Num(x), V::Num(y)) => {
            let z = f(x, y);
            if z.is_finite() { Ok(V::Num(z)) } else { missing("a computation gave no number") }
        }
        (V::Nums(s), V::Num(y)) => Ok(V::Nums(s.map(|x| f(x, y)).finite())),
        (V::Num(x), V::Nums(s)) => Ok(V::Nums(s.map(|y| f(x, y)).finite())),
        (V::Nums(s), V::Nums(t)) => Ok(V::Nums(s.join(&t, f).finite())),
        (a, b) => missing(format!("arithmetic on {} and {}", a.describe(), b.describe())),
    }
}

pub(super) fn cmp_op(a: V, b: V, f: impl Fn(f64, f64) -> bool) -> R<V> {
    match (a, b) {
        (V::Num(x), V::Num(y)) => Ok(V::Bool(f(x, y))),
        (V::Nums(s), V::Num(y)) => Ok(V::Bools(s.map(|x| f(x, y)))),
        (V::Num(x), V::Nums(s)) => Ok(V::Bools(s.map(|y| f(x, y)))),
        (V::Nums(s), V::Nums(t)) => Ok(V::Bools(s.join(&t, f))),
        (a, b) => missing(format!("comparison of {} and {}", a.describe(), b.describe())),
    }
}

pub(super) fn bool_op(a: V, b: V, f: impl Fn(bool, bool) -> bool) -> R<V> {
    match (a, b) {
        (V::Bool(x), V::Bool(y)) => Ok(V::Bool(f(x, y))),
        (V::Bools(s), V::Bool(y)) => Ok(V::Bools(s.map(|x| f(x, y)))),
        (V::Bool(x), V::Bools(s)) => Ok(V::Bools(s.map(|y| f(x, y)))),
        (V::Bools(s), V::Bools(t)) => Ok(V::Bools(s.join(&t, f))),
        (a, b) => missing(format!("logic on {} and {}", a.describe(), b.describe())),
    }
}
