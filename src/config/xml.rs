//! A minimal XML element tree with line numbers, on top of `quick-xml`.
//!
//! The toolbox's grammar accepts *any* element name in many places (`<att>`, `<node>`,
//! `<entry>`...), mixes case-insensitive and case-sensitive names, and lets order matter
//! (`<map>` before `<vgh>`), so a typed serde mapping does not fit. We read the document once
//! into [`Element`]s (name, attributes, children, line) the way the JDK DOM parser the toolbox
//! used sees it: only elements count; text, comments and processing instructions are skipped.
//! Attribute values are normalized as XML requires (a literal tab or line end becomes a space;
//! `&#09;` stays a tab) and unescaped.

use std::path::Path;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::{Error, Result};

/// One element of the document.
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub name: String,
    /// Attributes in document order, values unescaped.
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// 1-based line of the element's start tag.
    pub line: u64,
}

impl Element {
    /// The value of attribute `name`, compared case-insensitively (first match).
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// True if the element's name equals `name` ignoring ASCII case.
    pub fn is(&self, name: &str) -> bool {
        self.name.eq_ignore_ascii_case(name)
    }

    /// The start tag as written, with the given attributes only: `<att index='12'>`.
    pub fn tag(&self, shown: &[&str]) -> String {
        let mut s = format!("<{}", self.name);
        for want in shown {
            if let Some((k, v)) = self
                .attrs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(want))
            {
                s.push_str(&format!(" {k}='{v}'"));
            }
        }
        s.push('>');
        s
    }
}

/// Deepest element nesting accepted. A config is a handful of levels deep plus its VGHs; real
/// hierarchies have fewer than 20 levels. The limit keeps every later walk over the tree
/// (conversion, validation, dropping it) far from the thread's stack size.
pub const MAX_DEPTH: usize = 256;

/// Parses `text` (the content of `path`) and returns the root element, or `None` for a document
/// without elements. Elements nested deeper than [`MAX_DEPTH`] are an error.
pub fn parse_document(path: &Path, text: &str) -> Result<Option<Element>> {
    let lines = LineIndex::new(text);
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let pos = reader.buffer_position();
        let event = reader.read_event().map_err(|e| {
            let at = reader.error_position().max(pos);
            Error::at(path, lines.line(at), None, format!("malformed XML: {e}"))
        })?;
        let line = lines.line(pos);
        match event {
            Event::Start(start) => {
                let el = element(path, line, &start)?;
                if stack.len() >= MAX_DEPTH {
                    return Err(Error::at(
                        path,
                        line,
                        Some(format!("<{}>", el.name)),
                        format!("elements are nested more than {MAX_DEPTH} levels deep"),
                    ));
                }
                stack.push(el);
            }
            Event::Empty(start) => {
                let el = element(path, line, &start)?;
                attach(&mut stack, &mut root, el);
            }
            Event::End(_) => {
                if let Some(el) = stack.pop() {
                    attach(&mut stack, &mut root, el);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        if root.is_some() && stack.is_empty() {
            // The toolbox reads the first element only. An element after it is refused: what
            // it asks (a second <privacy>, identifiers) would not be done.
            return match after_root(&mut reader) {
                Some(at) => Err(Error::at(
                    path,
                    lines.line(at),
                    None,
                    "an element after the root element: a config has one root, with everything \
                     inside it",
                )),
                None => Ok(root),
            };
        }
    }
    if let Some(open) = stack.last() {
        return Err(Error::at(
            path,
            open.line,
            Some(format!("<{}>", open.name)),
            "malformed XML: element is never closed",
        ));
    }
    Ok(root)
}

/// The position of the first element after the root, if any (comments, processing
/// instructions and text are fine; so is XML malformed after the root, which the toolbox never
/// reads either).
fn after_root(reader: &mut Reader<&[u8]>) -> Option<u64> {
    loop {
        let pos = reader.buffer_position();
        match reader.read_event() {
            Ok(Event::Start(_) | Event::Empty(_)) => return Some(pos),
            Ok(Event::Eof) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

fn attach(stack: &mut [Element], root: &mut Option<Element>, el: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None => {
            if root.is_none() {
                *root = Some(el);
            }
        }
    }
}

fn element(path: &Path, line: u64, start: &BytesStart<'_>) -> Result<Element> {
    let name = String::from_utf8_lossy(start.name().as_ref()).into_owned();
    let mut attrs = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(|e| {
            Error::at(
                path,
                line,
                Some(format!("<{name}>")),
                format!("malformed XML attribute: {e}"),
            )
        })?;
        let key = String::from_utf8_lossy(attr.key.as_ref()).into_owned();
        let raw = String::from_utf8_lossy(&attr.value);
        // XML attribute-value normalization: line ends and tabs written literally become spaces.
        let normalized = raw.replace("\r\n", " ").replace(['\r', '\n', '\t'], " ");
        let value = quick_xml::escape::unescape(&normalized)
            .map_err(|e| {
                Error::at(
                    path,
                    line,
                    Some(format!("<{name} {key}>")),
                    format!("malformed XML attribute value: {e}"),
                )
            })?
            .into_owned();
        attrs.push((key, value));
    }
    Ok(Element {
        name,
        attrs,
        children: Vec::new(),
        line,
    })
}

/// Byte offset -> 1-based line number.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn line(&self, offset: u64) -> u64 {
        let offset = offset as usize;
        self.starts.partition_point(|&s| s <= offset) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Option<Element>> {
        parse_document(Path::new("t.xml"), text)
    }

    #[test]
    fn builds_the_element_tree_with_lines() {
        let root = parse(
            "<?xml version='1.0'?>\n<!-- c -->\n<Config K='5'>\n  <qid>\n    <att index='0'/>\n  </qid>\n  text\n</Config>\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(root.name, "Config");
        assert_eq!(root.line, 3);
        assert_eq!(root.attr("k"), Some("5"));
        assert_eq!(root.children.len(), 1);
        assert!(root.children[0].is("QID"));
        assert_eq!(root.children[0].line, 4);
        assert_eq!(root.children[0].children[0].line, 5);
        assert_eq!(
            root.children[0].children[0].tag(&["index"]),
            "<att index='0'>"
        );
    }

    #[test]
    fn normalizes_and_unescapes_attribute_values() {
        let root = parse("<c a='&#09;' b='x\ty' c='&lt;=50K' d='a\r\nb'/>")
            .unwrap()
            .unwrap();
        assert_eq!(root.attr("a"), Some("\t"));
        assert_eq!(root.attr("b"), Some("x y"));
        assert_eq!(root.attr("c"), Some("<=50K"));
        assert_eq!(root.attr("d"), Some("a b"));
    }

    #[test]
    fn empty_document_has_no_root() {
        assert_eq!(parse("").unwrap(), None);
        assert_eq!(
            parse("<?xml version='1.0'?>\n<!-- nothing -->\n").unwrap(),
            None
        );
    }

    #[test]
    fn reports_malformed_xml_with_a_line() {
        let e = parse("<a>\n<b>\n</a>").unwrap_err().to_string();
        assert!(e.starts_with("t.xml:3: malformed XML"), "{e}");
        let e = parse("<a>\n<b/>\n").unwrap_err().to_string();
        assert!(e.starts_with("t.xml:1: <a>: malformed XML"), "{e}");
        let e = parse("<a x='1' x='2'/>").unwrap_err().to_string();
        assert!(e.contains("malformed XML attribute"), "{e}");
    }
}
