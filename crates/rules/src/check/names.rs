//! Resolving names: parameters, lets, metrics, objects and their fields (`vm.*`, `disk.*`, ...).

use super::*;

impl<'a> Checker<'a> {
    pub(super) fn path(&mut self, p: &ast::Path) -> Option<TypedExpr> {
        let span = p.span;
        let segs = &p.segments;
        let first = segs.first()?;
        if segs.len() == 1 {
            return self.name(first);
        }
        let second = &segs[1];
        let third = segs.get(2);
        let too_long = |c: &mut Self, at: usize, object: String| {
            if let Some(s) = segs.get(at) {
                c.err(
                    Error::UnknownField { object, field: s.name.clone(), suggestion: None },
                    s.span,
                );
                true
            } else {
                false
            }
        };
        let f = first.name.as_str();
        if f == "vm" {
            let Some(field) = VmField::parse(&second.name) else {
                let suggestion = suggest(&second.name, VmField::names());
                self.err(
                    Error::UnknownField {
                        object: "vm".into(),
                        field: second.name.clone(),
                        suggestion,
                    },
                    second.span,
                );
                return None;
            };
            if field != VmField::TempDisk {
                if too_long(self, 2, format!("vm.{}", second.name)) {
                    return None;
                }
                let field = Field::Vm(field);
                return Self::texpr(
                    TypedExprKind::Ref(crate::check::Ref::Field { of: Owner::Vm, field }),
                    Ty::scalar(field.dim()),
                    span,
                );
            }
            let Some(t) = third else {
                return Self::texpr(
                    TypedExprKind::Ref(Ref::Element(Owner::TempDisk)),
                    Ty::scalar(Dim::Element(ElementKind::Disk)),
                    span,
                );
            };
            if too_long(self, 3, "vm.temp_disk".into()) {
                return None;
            }
            return self.member(ElementKind::Disk, Owner::TempDisk, "vm.temp_disk", t, span);
        }
        if f == "host" {
            if too_long(self, 2, format!("host.{}", second.name)) {
                return None;
            }
            return match HOST_METRICS.iter().find(|m| m.name() == second.name) {
                Some(m) => Self::texpr(
                    TypedExprKind::Ref(Ref::Metric { of: Owner::Host, metric: *m }),
                    Ty::series(metric_dim(*m)),
                    span,
                ),
                None => {
                    let suggestion = suggest(&second.name, HOST_METRICS.iter().map(|m| m.name()));
                    self.err(
                        Error::UnknownField {
                            object: "host".into(),
                            field: second.name.clone(),
                            suggestion,
                        },
                        second.span,
                    );
                    None
                }
            };
        }
        // `file.disk`: the disk the scope's database file sits on, an element.
        if f == "file" && second.name == "disk" {
            if self.nearest_element(ElementKind::File) != Some(Owner::Scope) {
                self.err(
                    Error::NotInScope { object: "file".into(), scope: self.scope.to_string() },
                    first.span,
                );
                return None;
            }
            let Some(t) = third else {
                return Self::texpr(
                    TypedExprKind::Ref(Ref::Element(Owner::FileDisk)),
                    Ty::scalar(Dim::Element(ElementKind::Disk)),
                    span,
                );
            };
            if too_long(self, 3, "file.disk".into()) {
                return None;
            }
            return self.member(ElementKind::Disk, Owner::FileDisk, "file.disk", t, span);
        }
        if let Some(kind) = ElementKind::parse(f) {
            let Some(subject) = self.nearest_element(kind) else {
                self.err(
                    Error::NotInScope { object: f.into(), scope: self.scope.to_string() },
                    first.span,
                );
                return None;
            };
            if too_long(self, 2, format!("{f}.{}", second.name)) {
                return None;
            }
            return self.member(kind, subject, f, second, span);
        }
        // `x.y` where x is not an object.
        let known = self.rule.params.iter().any(|p| p.name.name == f)
            || self.rule.lets.iter().any(|l| l.name.name == f)
            || f.parse::<Metric>().is_ok();
        if known {
            self.err(
                Error::UnknownField {
                    object: f.into(),
                    field: second.name.clone(),
                    suggestion: None,
                },
                second.span,
            );
        } else {
            let suggestion = suggest(f, OBJECTS.iter().copied());
            self.err(Error::UnknownName { name: f.into(), suggestion, hint: None }, first.span);
        }
        None
    }

    /// `OBJECT.NAME` on an element: a field, or a metric (that element's series).
    pub(super) fn member(
        &mut self,
        kind: ElementKind,
        of: Owner,
        object: &str,
        name: &ast::Ident,
        span: Span,
    ) -> Option<TypedExpr> {
        if let Some(field) = kind.field(&name.name) {
            return Self::texpr(
                TypedExprKind::Ref(Ref::Field { of, field }),
                Ty::scalar(field.dim()),
                span,
            );
        }
        if let Ok(metric) = name.name.parse::<Metric>() {
            return Self::texpr(
                TypedExprKind::Ref(Ref::Metric { of, metric }),
                Ty::series(metric_dim(metric)),
                span,
            );
        }
        let fields = kind.field_names();
        let candidates = fields.iter().copied().chain(Metric::ALL.iter().map(|m| m.name()));
        let suggestion = suggest(&name.name, candidates);
        self.err(
            Error::UnknownField { object: object.into(), field: name.name.clone(), suggestion },
            name.span,
        );
        None
    }

    /// A bare name.
    pub(super) fn name(&mut self, id: &ast::Ident) -> Option<TypedExpr> {
        let n = id.name.as_str();
        let span = id.span;
        if let Some(i) = self.rule.params.iter().position(|p| p.name.name == n) {
            let dim = self.params.get(i).copied().flatten()?;
            return Self::texpr(TypedExprKind::Ref(Ref::Param(i)), Ty::scalar(dim), span);
        }
        if let Some(i) = self.rule.lets[..self.visible_lets].iter().position(|l| l.name.name == n) {
            let ty = self.lets.get(i)?.as_ref()?.ty;
            return Self::texpr(TypedExprKind::Ref(Ref::Let(i)), ty, span);
        }
        if let Ok(metric) = n.parse::<Metric>() {
            let Some(&(_, of)) = self.elements.last() else {
                self.err(Error::BareMetricInVm { metric: n.into() }, span);
                return None;
            };
            return Self::texpr(
                TypedExprKind::Ref(Ref::Metric { of, metric }),
                Ty::series(metric_dim(metric)),
                span,
            );
        }
        for &(kind, of) in self.elements.iter().rev() {
            if let Some(field) = kind.field(n) {
                return Self::texpr(
                    TypedExprKind::Ref(Ref::Field { of, field }),
                    Ty::scalar(field.dim()),
                    span,
                );
            }
        }
        if let Some(c) = CacheMode::parse(n) {
            return Self::texpr(TypedExprKind::Cache(c), Ty::scalar(Dim::Cache), span);
        }
        if let Some(r) = Role::parse(n) {
            return Self::texpr(TypedExprKind::Role(r), Ty::scalar(Dim::Role), span);
        }
        if let Some(kind) = ElementKind::parse(n) {
            let Some(of) = self.nearest_element(kind) else {
                self.err(
                    Error::NotInScope { object: n.into(), scope: self.scope.to_string() },
                    span,
                );
                return None;
            };
            return Self::texpr(
                TypedExprKind::Ref(Ref::Element(of)),
                Ty::scalar(Dim::Element(kind)),
                span,
            );
        }
        if let Some(l) = self.rule.lets[self.visible_lets..].iter().find(|l| l.name.name == n) {
            let line = line_of(self.src, l.span);
            self.err(Error::UseBeforeLet { name: n.into(), line }, span);
            return None;
        }
        let hint = match n {
            "vm" => Some("`vm` is an object: use a field, like `vm.cached_mbps`".to_owned()),
            "host" => Some(
                "`host` is an object: use `host.cpu_pct` or `host.available_memory_mib`".to_owned(),
            ),
            _ if COLLECTIONS.contains(&n) => {
                Some(format!("a collection is aggregated: `sum(iops) over {n}`"))
            }
            _ => None,
        };
        let rule: &'a ast::Rule = self.rule;
        let mut candidates: Vec<&str> = Vec::new();
        candidates.extend(rule.params.iter().map(|p| p.name.name.as_str()));
        candidates.extend(rule.lets[..self.visible_lets].iter().map(|l| l.name.name.as_str()));
        let mut statics: Vec<&'static str> = Vec::new();
        if !self.elements.is_empty() {
            statics.extend(Metric::ALL.iter().map(|m| m.name()));
        }
        for (k, _) in &self.elements {
            statics.extend(k.field_names());
            statics.push(k.name());
        }
        statics.extend(CacheMode::names());
        statics.extend(Role::names());
        for s in statics {
            candidates.push(s);
        }
        let suggestion = if hint.is_some() { None } else { suggest(n, candidates) };
        self.err(Error::UnknownName { name: n.into(), suggestion, hint }, span);
        None
    }
}
