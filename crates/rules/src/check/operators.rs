//! Typing operators: arithmetic and comparison with units and dimensions, and logic.

use super::*;

impl Checker<'_> {
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        l: &TypedExpr,
        r: &TypedExpr,
        span: Span,
    ) -> Option<Ty> {
        let series = l.ty.series || r.ty.series;
        let sym = op.as_str();
        match op {
            BinaryOp::And | BinaryOp::Or => {
                for (t, e) in [(l, lhs), (r, rhs)] {
                    if t.ty.dim != Dim::Bool {
                        self.err(
                            Error::OperandType {
                                op: sym.into(),
                                expected: "bools",
                                found: t.ty.describe(),
                            },
                            e.span,
                        );
                        return None;
                    }
                }
                Some(Ty { dim: Dim::Bool, series })
            }
            BinaryOp::Eq | BinaryOp::Ne => {
                for (t, e) in [(l, lhs), (r, rhs)] {
                    if matches!(t.ty.dim, Dim::Element(_)) {
                        self.err(
                            Error::OperandType {
                                op: sym.into(),
                                expected: "values",
                                found: t.ty.describe(),
                            },
                            e.span,
                        );
                        return None;
                    }
                }
                self.same_dim(op, lhs, rhs, l, r, span)?;
                Some(Ty { dim: Dim::Bool, series })
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                self.numeric(op, lhs, rhs, l, r)?;
                self.same_dim(op, lhs, rhs, l, r, span)?;
                Some(Ty { dim: Dim::Bool, series })
            }
            BinaryOp::Add | BinaryOp::Sub => {
                self.numeric(op, lhs, rhs, l, r)?;
                let dim = self.same_dim(op, lhs, rhs, l, r, span)?;
                Some(Ty { dim, series })
            }
            BinaryOp::Mul | BinaryOp::Div => {
                self.numeric(op, lhs, rhs, l, r)?;
                let d = if op == BinaryOp::Mul {
                    Dim::product(l.ty.dim, r.ty.dim)
                } else {
                    Dim::quotient(l.ty.dim, r.ty.dim)
                };
                match d {
                    Some(dim) => Some(Ty { dim, series }),
                    None => {
                        let what = format!(
                            "`{sym}` of {} and {}",
                            l.ty.dim.describe(),
                            r.ty.dim.describe()
                        );
                        let dim = format!("{} {sym} {}", l.ty.dim, r.ty.dim);
                        self.err(Error::UnknownDimension { what, dim }, span);
                        None
                    }
                }
            }
        }
    }

    pub(super) fn numeric(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        l: &TypedExpr,
        r: &TypedExpr,
    ) -> Option<()> {
        for (t, e) in [(l, lhs), (r, rhs)] {
            if !t.ty.dim.is_numeric() {
                self.err(
                    Error::OperandType {
                        op: op.as_str().into(),
                        expected: "numbers",
                        found: t.ty.describe(),
                    },
                    e.span,
                );
                return None;
            }
        }
        Some(())
    }

    /// Both sides of a comparison or sum must agree; a literal 0 fits any number.
    pub(super) fn same_dim(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        l: &TypedExpr,
        r: &TypedExpr,
        span: Span,
    ) -> Option<Dim> {
        let (a, b) = (l.ty.dim, r.ty.dim);
        // A ratio against a plain number above 1 is almost always a forgotten `%`.
        for (t, other) in [(l, rhs), (r, lhs)] {
            if t.ty.dim == Dim::Ratio
                && let ExprKind::Number(n) = &other.kind
                && n.unit.is_none()
                && n.value > 1.0
            {
                let value = crate::print::number_text(n.value);
                let percent = crate::print::number_text(n.value * 100.0);
                self.err(Error::RatioVsPlain { value, percent }, other.span);
                return None;
            }
        }
        if let Some(d) = Dim::unify(a, b) {
            return Some(d);
        }
        let is_zero =
            |e: &Expr| matches!(&e.kind, ExprKind::Number(n) if n.value == 0.0 && n.unit.is_none());
        if a.is_numeric() && is_zero(rhs) {
            return Some(a);
        }
        if b.is_numeric() && is_zero(lhs) {
            return Some(b);
        }
        let hint = match (&lhs.kind, &rhs.kind) {
            (_, ExprKind::Number(n)) if n.unit.is_none() && a.literal_unit().is_some() => {
                Some(format!(
                    "write the unit: `{} {}`",
                    crate::print::number_text(n.value),
                    a.literal_unit().unwrap_or("")
                ))
            }
            (ExprKind::Number(n), _) if n.unit.is_none() && b.literal_unit().is_some() => {
                Some(format!(
                    "write the unit: `{} {}`",
                    crate::print::number_text(n.value),
                    b.literal_unit().unwrap_or("")
                ))
            }
            (_, ExprKind::Str(_)) if matches!(a, Dim::Cache | Dim::Role) => {
                Some("cache modes and roles are written without quotes: `none`, `log`".into())
            }
            (ExprKind::Str(_), _) if matches!(b, Dim::Cache | Dim::Role) => {
                Some("cache modes and roles are written without quotes: `none`, `log`".into())
            }
            _ if (a == Dim::Ratio && b == Dim::Count) || (a == Dim::Count && b == Dim::Ratio) => {
                Some("`ratio(a, b)` turns two counts into a ratio".into())
            }
            _ => None,
        };
        self.err(
            Error::DimensionMismatch {
                op: op.as_str().into(),
                left: l.ty.dim.describe(),
                right: r.ty.dim.describe(),
                hint,
            },
            span,
        );
        None
    }
}
