//! Arithmetic, comparison and logic on numbers, series and three-valued booleans.

use super::*;

impl Evaluation<'_> {
    // ---- operators ----------------------------------------------------------------------

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        l: &TypedExpr,
        r: &TypedExpr,
        whole: &TypedExpr,
    ) -> OrMissing<Value> {
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
                if let Value::Num(y) = b
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
                    (
                        a @ (Value::Num(_) | Value::Nums(_)),
                        b @ (Value::Num(_) | Value::Nums(_)),
                    ) => cmp_op(a, b, move |x, y| approx_eq(x, y) != ne),
                    (Value::Bools(s), Value::Bool(y)) | (Value::Bool(y), Value::Bools(s)) => {
                        Ok(Value::Bools(s.map(|x| (x == y) != ne)))
                    }
                    (Value::Bools(s), Value::Bools(t)) => {
                        Ok(Value::Bools(s.join(&t, |x, y| (x == y) != ne)))
                    }
                    (a, b) => {
                        let eq = match (&a, &b) {
                            (Value::Bool(x), Value::Bool(y)) => x == y,
                            (Value::Text(x), Value::Text(y)) => x.eq_ignore_ascii_case(y),
                            (Value::Cache(x), Value::Cache(y)) => x == y,
                            (Value::Role(x), Value::Role(y)) => x == y,
                            _ => {
                                return missing(format!(
                                    "cannot compare {} with {}",
                                    a.describe(),
                                    b.describe()
                                ));
                            }
                        };
                        Ok(Value::Bool(eq != ne))
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
    pub(super) fn logic(
        &mut self,
        op: BinaryOp,
        l: &TypedExpr,
        r: &TypedExpr,
        series: bool,
    ) -> OrMissing<Value> {
        let is_and = op == BinaryOp::And;
        let a = self.eval(l);
        if let Ok(Value::Bool(x)) = a
            && x != is_and
        {
            if !series {
                return Ok(Value::Bool(x));
            }
            return Ok(match self.eval(r) {
                Ok(Value::Bools(s)) => Value::Bools(s.map(move |_| x)),
                _ => Value::Bool(x),
            });
        }
        let b = self.eval(r);
        match (a, b) {
            (Ok(Value::Bool(_)), Ok(Value::Bool(y))) => Ok(Value::Bool(y)),
            (Ok(Value::Bools(s)), Ok(Value::Bool(y))) if y != is_and => {
                Ok(Value::Bools(s.map(move |_| y)))
            }
            (_, Ok(Value::Bool(y))) if y != is_and => Ok(Value::Bool(y)),
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

pub(super) fn num_op(a: Value, b: Value, f: impl Fn(f64, f64) -> f64) -> OrMissing<Value> {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => {
            let z = f(x, y);
            if z.is_finite() { Ok(Value::Num(z)) } else { missing("a computation gave no number") }
        }
        (Value::Nums(s), Value::Num(y)) => Ok(Value::Nums(s.map_owned(|x| f(x, y)).finite())),
        (Value::Num(x), Value::Nums(s)) => Ok(Value::Nums(s.map_owned(|y| f(x, y)).finite())),
        (Value::Nums(s), Value::Nums(t)) => Ok(Value::Nums(s.join_owned(t, f).finite())),
        (a, b) => missing(format!("arithmetic on {} and {}", a.describe(), b.describe())),
    }
}

/// [`num_op`] keeping a series' points that are not finite, for a fold of finite values
/// whose result is made finite once, at its end ([`super::functions::Folder`]): a sum's
/// point that overflows stays not finite whatever finite value is added to it (and a
/// minimum or maximum of finite values is finite), so the points kept are the same as
/// when each step drops them, without a pass over the sum at each step.
pub(super) fn num_op_unchecked(
    a: Value,
    b: Value,
    f: impl Fn(f64, f64) -> f64,
) -> OrMissing<Value> {
    match (a, b) {
        (Value::Nums(s), Value::Num(y)) => Ok(Value::Nums(s.map_owned(|x| f(x, y)))),
        (Value::Num(x), Value::Nums(s)) => Ok(Value::Nums(s.map_owned(|y| f(x, y)))),
        (Value::Nums(s), Value::Nums(t)) => Ok(Value::Nums(s.join_owned(t, f))),
        (a, b) => num_op(a, b, f),
    }
}

pub(super) fn cmp_op(a: Value, b: Value, f: impl Fn(f64, f64) -> bool) -> OrMissing<Value> {
    match (a, b) {
        (Value::Num(x), Value::Num(y)) => Ok(Value::Bool(f(x, y))),
        (Value::Nums(s), Value::Num(y)) => Ok(Value::Bools(s.map(|x| f(x, y)))),
        (Value::Num(x), Value::Nums(s)) => Ok(Value::Bools(s.map(|y| f(x, y)))),
        (Value::Nums(s), Value::Nums(t)) => Ok(Value::Bools(s.join(&t, f))),
        (a, b) => missing(format!("comparison of {} and {}", a.describe(), b.describe())),
    }
}

pub(super) fn bool_op(a: Value, b: Value, f: impl Fn(bool, bool) -> bool) -> OrMissing<Value> {
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Ok(Value::Bool(f(x, y))),
        (Value::Bools(s), Value::Bool(y)) => Ok(Value::Bools(s.map_owned(|x| f(x, y)))),
        (Value::Bool(x), Value::Bools(s)) => Ok(Value::Bools(s.map_owned(|y| f(x, y)))),
        (Value::Bools(s), Value::Bools(t)) => Ok(Value::Bools(s.join_owned(t, f))),
        (a, b) => missing(format!("logic on {} and {}", a.describe(), b.describe())),
    }
}
