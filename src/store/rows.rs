//! Reading columns into model values with errors that name the table, the row and the column,
//! and writing enums and nested values in the forms the schema documents (serde names, JSON).

use super::error::StoreError;
use rusqlite::types::ValueRef;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Display;

/// One row being converted, with what identifies it in messages.
pub(crate) struct Cells<'r, 's> {
    table: &'static str,
    key: String,
    row: &'r rusqlite::Row<'s>,
}

/// How a raw SQLite value reads in a message.
fn shown(v: ValueRef<'_>) -> String {
    match v {
        ValueRef::Null => "NULL".to_string(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Text(t) => {
            let s = String::from_utf8_lossy(t);
            if s.chars().count() > 60 {
                let cut: String = s.chars().take(60).collect();
                format!("'{cut}…'")
            } else {
                format!("'{s}'")
            }
        }
        ValueRef::Blob(b) => format!("a {}-byte blob", b.len()),
    }
}

impl<'r, 's> Cells<'r, 's> {
    /// `key_cols` are the columns that identify the row (its primary key), shown in messages.
    pub(crate) fn new(table: &'static str, row: &'r rusqlite::Row<'s>, key_cols: &[&str]) -> Self {
        let key = key_cols
            .iter()
            .map(|c| match row.get_ref(*c) {
                Ok(v) => format!("{c}={}", shown(v)),
                Err(_) => format!("{c}=?"),
            })
            .collect::<Vec<_>>()
            .join(", ");
        Cells { table, key, row }
    }

    /// A message for a bad value in `col`.
    pub(crate) fn bad(&self, col: &str, problem: impl Display) -> StoreError {
        StoreError::Data(format!(
            "table {}, row ({}): column {col} {problem}. The row was changed outside Powderhorn \
             or by a newer build; restore a backup, or re-save the item to replace the row.",
            self.table, self.key
        ))
    }

    fn raw(&self, col: &str) -> Result<ValueRef<'_>, StoreError> {
        self.row
            .get_ref(col)
            .map_err(|e| self.bad(col, format!("cannot be read: {e}")))
    }

    pub(crate) fn opt_text(&self, col: &str) -> Result<Option<String>, StoreError> {
        match self.raw(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Text(t) => match std::str::from_utf8(t) {
                Ok(s) => Ok(Some(s.to_string())),
                Err(_) => Err(self.bad(col, "holds text that is not valid UTF-8")),
            },
            other => Err(self.bad(col, format!("holds {} where text belongs", shown(other)))),
        }
    }

    pub(crate) fn text(&self, col: &str) -> Result<String, StoreError> {
        self.opt_text(col)?
            .ok_or_else(|| self.bad(col, "is NULL where text belongs"))
    }

    pub(crate) fn opt_int<T: TryFrom<i64>>(&self, col: &str) -> Result<Option<T>, StoreError> {
        match self.raw(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(i) => T::try_from(i).map(Some).map_err(|_| {
                self.bad(
                    col,
                    format!(
                        "holds {i}, which is out of range for {}",
                        std::any::type_name::<T>()
                    ),
                )
            }),
            other => Err(self.bad(
                col,
                format!("holds {} where an integer belongs", shown(other)),
            )),
        }
    }

    pub(crate) fn int<T: TryFrom<i64>>(&self, col: &str) -> Result<T, StoreError> {
        self.opt_int(col)?
            .ok_or_else(|| self.bad(col, "is NULL where an integer belongs"))
    }

    pub(crate) fn opt_real(&self, col: &str) -> Result<Option<f64>, StoreError> {
        match self.raw(col)? {
            ValueRef::Null => Ok(None),
            ValueRef::Real(r) => Ok(Some(r)),
            // Integers stand for whole-number reals in rows written by hand.
            ValueRef::Integer(i) => Ok(Some(i as f64)),
            other => Err(self.bad(
                col,
                format!("holds {} where a number belongs", shown(other)),
            )),
        }
    }

    pub(crate) fn real(&self, col: &str) -> Result<f64, StoreError> {
        self.opt_real(col)?
            .ok_or_else(|| self.bad(col, "is NULL where a number belongs"))
    }

    pub(crate) fn flag(&self, col: &str) -> Result<bool, StoreError> {
        match self.int::<i64>(col)? {
            0 => Ok(false),
            1 => Ok(true),
            n => Err(self.bad(col, format!("holds {n} where a 0/1 flag belongs"))),
        }
    }

    /// An enum stored as its serde name.
    pub(crate) fn opt_enum<T: DeserializeOwned>(&self, col: &str) -> Result<Option<T>, StoreError> {
        let Some(s) = self.opt_text(col)? else {
            return Ok(None);
        };
        serde_json::from_value(serde_json::Value::String(s.clone()))
            .map(Some)
            .map_err(|e| {
                self.bad(
                    col,
                    format!("holds '{s}', which is not a valid value ({e})"),
                )
            })
    }

    pub(crate) fn enumv<T: DeserializeOwned>(&self, col: &str) -> Result<T, StoreError> {
        self.opt_enum(col)?
            .ok_or_else(|| self.bad(col, "is NULL where a value belongs"))
    }

    /// A nested value stored as JSON text.
    pub(crate) fn opt_json<T: DeserializeOwned>(&self, col: &str) -> Result<Option<T>, StoreError> {
        let Some(s) = self.opt_text(col)? else {
            return Ok(None);
        };
        serde_json::from_str(&s)
            .map(Some)
            .map_err(|e| self.bad(col, format!("holds JSON that does not fit ({e})")))
    }

    pub(crate) fn json<T: DeserializeOwned>(&self, col: &str) -> Result<T, StoreError> {
        self.opt_json(col)?
            .ok_or_else(|| self.bad(col, "is NULL where JSON belongs"))
    }
}

/// The serde name of a unit-variant enum value, as the schema stores it.
pub(crate) fn enum_text<T: Serialize + std::fmt::Debug>(v: &T) -> Result<String, StoreError> {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => Ok(s),
        Ok(other) => Err(StoreError::Invalid(format!(
            "{v:?} cannot be stored as a name (it serialises as {other})"
        ))),
        Err(e) => Err(StoreError::Invalid(format!("{v:?} cannot be stored: {e}"))),
    }
}

/// A nested value as JSON text; `what` names it in the message if it cannot be written.
pub(crate) fn json_text<T: Serialize>(v: &T, what: &str) -> Result<String, StoreError> {
    serde_json::to_string(v)
        .map_err(|e| StoreError::Invalid(format!("{what} cannot be stored: {e}")))
}

/// Vec positions and other counts as SQLite integers.
pub(crate) fn pos(i: usize) -> i64 {
    i64::try_from(i).unwrap_or(i64::MAX)
}
