//! Prices from the Azure Retail Prices API: the JSON its `GET
//! https://prices.azure.com/api/retail/prices?$filter=...` answers, `{"BillingCurrency",
//! "Items": [...], "NextPageLink", "Count"}`, each item with `armSkuName`, `retailPrice`,
//! `unitOfMeasure`, `armRegionName`, `productName`, `skuName`, `meterName`, `serviceName`,
//! `type`, `currencyCode` (documented at
//! <https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices>).
//! Several pages may be concatenated into one `Items` list, or given as a JSON array of
//! pages.

use std::fmt;

use serde_json::Value;

/// Hours in a month, as Azure's pricing calculator bills a month of an hourly price.
pub const HOURS_PER_MONTH: f64 = 730.0;

/// A prices file that cannot be used: the file and the JSON path, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceError {
    pub file: String,
    pub path: String,
    pub message: String,
}

impl fmt::Display for PriceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.path, self.message)
        }
    }
}

impl std::error::Error for PriceError {}

/// One price row (the fields advisor reads).
#[derive(Debug, Clone, PartialEq)]
pub struct PriceItem {
    pub arm_sku_name: String,
    pub retail_price: f64,
    pub unit_of_measure: String,
    pub arm_region_name: String,
    pub product_name: String,
    pub sku_name: String,
    pub meter_name: String,
    pub kind: String,
    pub currency: String,
}

/// The usable rows of a prices file, for one region.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceList {
    pub file: String,
    pub region: String,
    pub currency: String,
    items: Vec<PriceItem>,
}

fn err(file: &str, path: &str, message: impl Into<String>) -> PriceError {
    PriceError { file: file.to_owned(), path: path.to_owned(), message: message.into() }
}

fn text_field(item: &Value, key: &str, file: &str, path: &str) -> Result<String, PriceError> {
    match item.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        None | Some(Value::Null) => Ok(String::new()),
        Some(_) => Err(err(file, &format!("{path}.{key}"), "expected a string")),
    }
}

impl PriceList {
    /// Reads a prices file. `region` picks the `armRegionName` when the file holds several;
    /// a file of one region needs none.
    pub fn parse(file: &str, text: &str, region: Option<&str>) -> Result<PriceList, PriceError> {
        let doc: Value = serde_json::from_str(text).map_err(|e| {
            err(file, "", format!("not JSON at line {} column {}: {e}", e.line(), e.column()))
        })?;
        let pages: Vec<(String, &Value)> = match &doc {
            Value::Array(a) => a.iter().enumerate().map(|(i, p)| (format!("$[{i}]"), p)).collect(),
            Value::Object(_) => vec![("$".to_owned(), &doc)],
            _ => {
                return Err(err(file, "$", "expected the Retail Prices API's object with `Items`"));
            }
        };
        let mut items = Vec::new();
        for (ppath, page) in pages {
            let Some(list) = page.get("Items") else {
                return Err(err(
                    file,
                    &ppath,
                    "no `Items`: this is not an Azure Retail Prices API answer \
                     (https://prices.azure.com/api/retail/prices)",
                ));
            };
            let Value::Array(list) = list else {
                return Err(err(file, &format!("{ppath}.Items"), "expected an array"));
            };
            for (i, item) in list.iter().enumerate() {
                let path = format!("{ppath}.Items[{i}]");
                if !item.is_object() {
                    return Err(err(file, &path, "expected an object"));
                }
                let retail_price = match item.get("retailPrice") {
                    Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
                    None => return Err(err(file, &path, "no `retailPrice`")),
                    Some(_) => {
                        return Err(err(file, &format!("{path}.retailPrice"), "expected a number"));
                    }
                };
                if !retail_price.is_finite() || retail_price < 0.0 {
                    return Err(err(
                        file,
                        &format!("{path}.retailPrice"),
                        "expected a price of 0 or more",
                    ));
                }
                items.push(PriceItem {
                    arm_sku_name: text_field(item, "armSkuName", file, &path)?,
                    retail_price,
                    unit_of_measure: text_field(item, "unitOfMeasure", file, &path)?,
                    arm_region_name: text_field(item, "armRegionName", file, &path)?,
                    product_name: text_field(item, "productName", file, &path)?,
                    sku_name: text_field(item, "skuName", file, &path)?,
                    meter_name: text_field(item, "meterName", file, &path)?,
                    kind: text_field(item, "type", file, &path)?,
                    currency: text_field(item, "currencyCode", file, &path)?,
                });
            }
        }
        let mut regions: Vec<String> = items.iter().map(|i| i.arm_region_name.clone()).collect();
        regions.sort();
        regions.dedup();
        let region = match region {
            Some(r) => {
                if !regions.iter().any(|x| x.eq_ignore_ascii_case(r)) {
                    return Err(err(
                        file,
                        "",
                        format!("no price for region `{r}` (the file has: {})", regions.join(", ")),
                    ));
                }
                r.to_ascii_lowercase()
            }
            None => match regions.as_slice() {
                [one] => one.clone(),
                [] => return Err(err(file, "$.Items", "no prices in it")),
                many => {
                    return Err(err(
                        file,
                        "",
                        format!(
                            "prices for several regions ({}): choose one with --region",
                            many.join(", ")
                        ),
                    ));
                }
            },
        };
        items
            .retain(|i| i.arm_region_name.eq_ignore_ascii_case(&region) && i.kind == "Consumption");
        let currency = items.first().map(|i| i.currency.clone()).unwrap_or_default();
        Ok(PriceList { file: file.to_owned(), region, currency, items })
    }

    /// A VM size's pay-as-you-go monthly price: the Linux meter (a `productName` without
    /// "Windows"), not Spot or Low Priority, hourly price x [`HOURS_PER_MONTH`].
    pub fn vm_monthly(&self, size: &str) -> Option<f64> {
        self.items
            .iter()
            .filter(|i| i.arm_sku_name.eq_ignore_ascii_case(size))
            .filter(|i| i.unit_of_measure.eq_ignore_ascii_case("1 Hour"))
            .filter(|i| {
                let words = format!("{} {} {}", i.product_name, i.sku_name, i.meter_name);
                !words.contains("Windows")
                    && !words.contains("Spot")
                    && !words.contains("Low Priority")
            })
            .map(|i| i.retail_price * HOURS_PER_MONTH)
            .min_by(f64::total_cmp)
    }

    /// A fixed-size managed disk's monthly price (`P30`, `E10`, `S30`): the `"<SKU> LRS"`
    /// row of the "... Managed Disks" product, billed `1/Month`.
    pub fn disk_monthly(&self, sku: &str) -> Option<f64> {
        let want = format!("{sku} LRS");
        self.items
            .iter()
            .filter(|i| i.product_name.contains("Managed Disks"))
            .filter(|i| i.sku_name.eq_ignore_ascii_case(&want))
            .filter(|i| i.meter_name.ends_with("Disk") || i.meter_name.ends_with("Disks"))
            .filter(|i| i.unit_of_measure.eq_ignore_ascii_case("1/Month"))
            .map(|i| i.retail_price)
            .min_by(f64::total_cmp)
    }

    fn provisioned_meter(&self, product: &str, meter: &str) -> Option<&PriceItem> {
        self.items.iter().find(|i| i.product_name.contains(product) && i.meter_name.contains(meter))
    }

    /// Hourly price per unit of a provisioned disk's meter, as a monthly price per unit.
    fn per_unit_month(&self, product: &str, meter: &str) -> Option<f64> {
        let i = self.provisioned_meter(product, meter)?;
        if i.unit_of_measure.ends_with("/Hour") {
            Some(i.retail_price * HOURS_PER_MONTH)
        } else if i.unit_of_measure.ends_with("/Month") {
            Some(i.retail_price)
        } else {
            None
        }
    }

    /// Premium SSD v2's monthly price: capacity, IOPS above the free 3,000 and MB/s above
    /// the free 125 (`catalog/NOTES.md`, Premium SSD v2).
    pub fn premium_v2_monthly(&self, gib: f64, iops: f64, mbps: f64) -> Option<f64> {
        let p = "Premium SSD v2";
        let cap = self.per_unit_month(p, "Provisioned Capacity")?;
        let io = self.per_unit_month(p, "Provisioned IOPS")?;
        let tp = self.per_unit_month(p, "Provisioned Throughput")?;
        Some(gib * cap + (iops - 3000.0).max(0.0) * io + (mbps - 125.0).max(0.0) * tp)
    }

    /// Ultra Disk's monthly price: capacity, IOPS and MB/s as provisioned (no free part).
    pub fn ultra_monthly(&self, gib: f64, iops: f64, mbps: f64) -> Option<f64> {
        let p = "Ultra";
        let cap = self.per_unit_month(p, "Provisioned Capacity")?;
        let io = self.per_unit_month(p, "Provisioned IOPS")?;
        let tp = self.per_unit_month(p, "Provisioned Throughput")?;
        Some(gib * cap + iops * io + mbps * tp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"{"BillingCurrency":"USD","Items":[
      {"currencyCode":"USD","retailPrice":0.5,"armRegionName":"westeurope","productName":"Virtual Machines DSv2 Series","skuName":"DS13 v2","meterName":"DS13 v2","armSkuName":"Standard_DS13_v2","unitOfMeasure":"1 Hour","type":"Consumption"},
      {"currencyCode":"USD","retailPrice":0.9,"armRegionName":"westeurope","productName":"Virtual Machines DSv2 Series Windows","skuName":"DS13 v2","meterName":"DS13 v2","armSkuName":"Standard_DS13_v2","unitOfMeasure":"1 Hour","type":"Consumption"},
      {"currencyCode":"USD","retailPrice":0.1,"armRegionName":"westeurope","productName":"Virtual Machines DSv2 Series","skuName":"DS13 v2 Spot","meterName":"DS13 v2 Spot","armSkuName":"Standard_DS13_v2","unitOfMeasure":"1 Hour","type":"Consumption"},
      {"currencyCode":"USD","retailPrice":135.17,"armRegionName":"westeurope","productName":"Premium SSD Managed Disks","skuName":"P30 LRS","meterName":"P30 LRS Disk","armSkuName":"Premium_LRS","unitOfMeasure":"1/Month","type":"Consumption"}
    ],"NextPageLink":null,"Count":4}"#;

    #[test]
    fn reads_the_linux_pay_as_you_go_meter_and_disk_rows() {
        let p = PriceList::parse("p.json", ONE, None).expect("parses");
        assert_eq!(p.region, "westeurope");
        assert_eq!(p.vm_monthly("standard_ds13_v2"), Some(0.5 * HOURS_PER_MONTH));
        assert_eq!(p.disk_monthly("P30"), Some(135.17));
        assert_eq!(p.disk_monthly("P40"), None);
    }

    #[test]
    fn errors_name_the_file_and_json_path() {
        let bad = r#"{"Items":[{"retailPrice":"1"}]}"#;
        let e = PriceList::parse("p.json", bad, None).expect_err("bad");
        assert_eq!(e.to_string(), "p.json: $.Items[0].retailPrice: expected a number");
        let e = PriceList::parse("p.json", "{\"Count\":0}", None).expect_err("no items");
        assert!(e.to_string().starts_with("p.json: $: no `Items`"), "{e}");
        let e = PriceList::parse("p.json", "{\"Items\":[", None).expect_err("cut");
        assert!(e.to_string().contains("line 1 column"), "{e}");
    }

    #[test]
    fn several_regions_need_a_choice() {
        let two = ONE.replacen("\"westeurope\"", "\"eastus\"", 1);
        let e = PriceList::parse("p.json", &two, None).expect_err("two regions");
        assert!(e.to_string().contains("--region"), "{e}");
        let p = PriceList::parse("p.json", &two, Some("eastus")).expect("chosen");
        assert_eq!(p.vm_monthly("Standard_DS13_v2"), Some(0.5 * HOURS_PER_MONTH));
    }
}
