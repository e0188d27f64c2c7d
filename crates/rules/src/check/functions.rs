//! Typing calls: built-in functions, time aggregates, and aggregates over collections.

use super::*;

impl Checker<'_> {
    pub(super) fn call(
        &mut self,
        func: &ast::Ident,
        args: &[Expr],
        span: Span,
    ) -> Option<TypedExpr> {
        let name = func.name.as_str();
        let builtin = match builtins::lookup(name, args.len()) {
            Ok(b) => b,
            Err(named) if named.is_empty() => {
                if CollectionAgg::parse(name).is_some() {
                    self.err(Error::AggregateWithoutOver { name: name.into() }, span);
                } else {
                    let candidates = builtins::function_names()
                        .into_iter()
                        .chain(AGGREGATES.iter().map(|a| a.name));
                    let suggestion = suggest(name, candidates);
                    self.err(Error::UnknownFunction { name: name.into(), suggestion }, func.span);
                }
                return None;
            }
            Err(named) => {
                let mut counts: Vec<usize> = named.iter().map(|f| f.params.len()).collect();
                counts.sort_unstable();
                let expected =
                    counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
                let one = counts.len() == 1 && counts[0] == 1;
                let expected = format!("{expected} argument{}", if one { "" } else { "s" });
                self.err(Error::Arity { func: name.into(), expected, found: args.len() }, span);
                return None;
            }
        };
        let mut typed = Vec::new();
        let mut failed = false;
        for a in args {
            match self.expr(a) {
                Some(t) => typed.push(t),
                None => failed = true,
            }
        }
        if failed {
            return None;
        }
        let ty = self.call_type(builtin, name, args, &typed)?;
        Self::texpr(TypedExprKind::Call(builtin, typed), ty, span)
    }

    pub(super) fn want(
        &mut self,
        ok: bool,
        func: &str,
        index: usize,
        expected: &str,
        args: &[Expr],
        t: &[TypedExpr],
    ) -> Option<()> {
        if ok {
            return Some(());
        }
        self.err(
            Error::ArgumentType {
                func: func.into(),
                index: index + 1,
                expected: expected.into(),
                found: t[index].ty.describe(),
            },
            args[index].span,
        );
        None
    }

    pub(super) fn call_type(
        &mut self,
        b: Builtin,
        name: &str,
        args: &[Expr],
        t: &[TypedExpr],
    ) -> Option<Ty> {
        let ty = |i: usize| t[i].ty;
        match b {
            Builtin::Avg
            | Builtin::Min
            | Builtin::Max
            | Builtin::P50
            | Builtin::P90
            | Builtin::P95
            | Builtin::P99
            | Builtin::Pct => {
                let a = ty(0);
                self.want(a.dim.is_numeric() && a.series, name, 0, "a numeric series", args, t)?;
                if b == Builtin::Pct {
                    let p = ty(1);
                    self.want(
                        p.dim == Dim::Number && !p.series,
                        name,
                        1,
                        "a plain number from 0 to 100",
                        args,
                        t,
                    )?;
                }
                Some(Ty::scalar(a.dim))
            }
            Builtin::Interval => {
                let a = ty(0);
                self.want(a.dim.is_numeric() && a.series, name, 0, "a numeric series", args, t)?;
                Some(Ty::scalar(Dim::Time))
            }
            Builtin::Sustained | Builtin::Share | Builtin::Duration => {
                let a = ty(0);
                self.want(a.dim == Dim::Bool && a.series, name, 0, "a bool series", args, t)?;
                match b {
                    Builtin::Sustained => {
                        let d = ty(1);
                        self.want(d.dim == Dim::Time && !d.series, name, 1, "a time", args, t)?;
                        Some(Ty::scalar(Dim::Bool))
                    }
                    Builtin::Share => Some(Ty::scalar(Dim::Ratio)),
                    _ => Some(Ty::scalar(Dim::Time)),
                }
            }
            Builtin::Longest | Builtin::Runs | Builtin::Spans => {
                let a = ty(0);
                self.want(a.dim == Dim::Bool && a.series, name, 0, "a bool series", args, t)?;
                Some(Ty::scalar(match b {
                    Builtin::Longest => Dim::Time,
                    Builtin::Runs => Dim::Count,
                    _ => Dim::Text,
                }))
            }
            Builtin::During => {
                let a = ty(0);
                self.want(a.dim.is_numeric() && a.series, name, 0, "a numeric series", args, t)?;
                let c = ty(1);
                self.want(c.dim == Dim::Bool && c.series, name, 1, "a bool series", args, t)?;
                Some(a)
            }
            Builtin::Abs => {
                self.want(ty(0).dim.is_numeric(), name, 0, "a number", args, t)?;
                Some(ty(0))
            }
            Builtin::Min2 | Builtin::Max2 | Builtin::Ratio | Builtin::Between => {
                for i in 0..t.len() {
                    self.want(ty(i).dim.is_numeric(), name, i, "a number", args, t)?;
                }
                let mut dim = ty(0).dim;
                for i in 1..t.len() {
                    match Dim::unify(dim, ty(i).dim) {
                        Some(d) => dim = d,
                        None => {
                            let expected = format!("{} like argument 1", dim.describe());
                            self.want(false, name, i, &expected, args, t)?;
                        }
                    }
                }
                let series = t.iter().any(|x| x.ty.series);
                Some(match b {
                    Builtin::Ratio => Ty { dim: Dim::Ratio, series },
                    Builtin::Between => Ty { dim: Dim::Bool, series },
                    _ => Ty { dim, series },
                })
            }
            Builtin::Keep | Builtin::Plateau => {
                let a = ty(0);
                self.want(a.dim.is_numeric() && a.series, name, 0, "a numeric series", args, t)?;
                let c = ty(1);
                self.want(c.dim == Dim::Bool && c.series, name, 1, "a bool series", args, t)?;
                if b == Builtin::Plateau {
                    let n = ty(2);
                    let count = matches!(n.dim, Dim::Count | Dim::Number) && !n.series;
                    self.want(count, name, 2, "a count", args, t)?;
                }
                Some(Ty { dim: a.dim, series: true })
            }
            Builtin::DiskCapsNear | Builtin::VmSizesNear | Builtin::VmSizesNearIn => {
                let x = ty(0);
                let measure = matches!(x.dim, Dim::Rate | Dim::Throughput) && !x.series;
                self.want(measure, name, 0, "a scalar rate or throughput", args, t)?;
                let tol = ty(1);
                let ratio = matches!(tol.dim, Dim::Ratio | Dim::Number) && !tol.series;
                self.want(ratio, name, 1, "a ratio", args, t)?;
                if b == Builtin::VmSizesNearIn {
                    let f = ty(2);
                    self.want(f == Ty::scalar(Dim::Text), name, 2, "text", args, t)?;
                }
                Some(Ty::scalar(Dim::Text))
            }
            Builtin::Exists => Some(Ty::scalar(Dim::Bool)),
            Builtin::Coalesce => {
                let dim = Dim::unify(ty(0).dim, ty(1).dim);
                let expected = format!("{} like argument 1", ty(0).dim.describe());
                self.want(dim.is_some(), name, 1, &expected, args, t)?;
                Some(Ty { dim: dim.unwrap_or(ty(0).dim), series: ty(0).series || ty(1).series })
            }
            Builtin::If => {
                let c = ty(0);
                self.want(c.dim == Dim::Bool && !c.series, name, 0, "a scalar bool", args, t)?;
                let (a, b) = (ty(1), ty(2));
                let dim = if a.dim.is_numeric() && b.dim.is_numeric() {
                    Dim::unify(a.dim, b.dim)
                } else {
                    (a.dim == b.dim).then_some(a.dim)
                };
                let expected = format!("{} like argument 2", a.describe());
                match dim {
                    Some(dim) if a.series == b.series => Some(Ty { dim, series: a.series }),
                    _ => {
                        self.want(false, name, 2, &expected, args, t)?;
                        None
                    }
                }
            }
        }
    }

    pub(super) fn aggregate(
        &mut self,
        func: &ast::Ident,
        body: &Expr,
        over: &ast::Path,
        filter: Option<&Expr>,
        span: Span,
    ) -> Option<TypedExpr> {
        let name = func.name.as_str();
        let Some(agg) = CollectionAgg::parse(name) else {
            if builtins::function_names().contains(&name) {
                self.err(Error::NotAnAggregate { name: name.into() }, func.span);
            } else {
                let suggestion = suggest(name, AGGREGATES.iter().map(|a| a.name));
                self.err(Error::UnknownFunction { name: name.into(), suggestion }, func.span);
            }
            return None;
        };
        let coll = self.collection(over)?;
        let depth = self.overs;
        self.elements.push((coll.element(), Owner::Over(depth)));
        self.overs += 1;
        let b = self.expr(body);
        let f = filter.and_then(|f| {
            let t = self.expr(f)?;
            if t.ty != Ty::scalar(Dim::Bool) {
                self.err(Error::WhereNotBool { found: t.ty.describe() }, f.span);
                return None;
            }
            Some(t)
        });
        self.overs -= 1;
        self.elements.pop();
        let b = b?;
        if filter.is_some() && f.is_none() {
            return None;
        }
        let series = b.ty.series;
        let ty = match agg {
            CollectionAgg::Sum | CollectionAgg::Avg | CollectionAgg::Min | CollectionAgg::Max => {
                if !b.ty.dim.is_numeric() {
                    self.err(
                        Error::ArgumentType {
                            func: name.into(),
                            index: 1,
                            expected: "a number".into(),
                            found: b.ty.describe(),
                        },
                        body.span,
                    );
                    return None;
                }
                b.ty
            }
            CollectionAgg::Count => {
                if !matches!(b.ty.dim, Dim::Bool | Dim::Element(_)) {
                    self.err(
                        Error::ArgumentType {
                            func: name.into(),
                            index: 1,
                            expected: "the element or a bool".into(),
                            found: b.ty.describe(),
                        },
                        body.span,
                    );
                    return None;
                }
                Ty { dim: Dim::Count, series }
            }
            CollectionAgg::Any | CollectionAgg::All => {
                if b.ty.dim != Dim::Bool {
                    self.err(
                        Error::ArgumentType {
                            func: name.into(),
                            index: 1,
                            expected: "a bool".into(),
                            found: b.ty.describe(),
                        },
                        body.span,
                    );
                    return None;
                }
                b.ty
            }
        };
        Self::texpr(
            TypedExprKind::Aggregate {
                agg,
                over: coll,
                body: Box::new(b),
                filter: f.map(Box::new),
            },
            ty,
            span,
        )
    }

    pub(super) fn collection(&mut self, over: &ast::Path) -> Option<Collection> {
        let text = over.to_string();
        let c = match text.as_str() {
            "disks" => Collection::Disks,
            "pools" => Collection::Pools,
            "targets" => Collection::Targets,
            "benches" => Collection::Benches,
            "pool.members" => match self.nearest_element(ElementKind::Pool) {
                Some(of) => Collection::PoolMembers { of },
                None => {
                    self.err(
                        Error::NotInScope { object: "pool".into(), scope: self.scope.to_string() },
                        over.span,
                    );
                    return None;
                }
            },
            _ => {
                let suggestion = suggest(&text, COLLECTIONS.iter().copied());
                self.err(Error::UnknownCollection { name: text, suggestion }, over.span);
                return None;
            }
        };
        Some(c)
    }
}
