//! `-quiet` silences everything but errors, for every method: no warnings (config, skipped
//! rows, blank lines), no summary, no console lines (even with `-verbose`), no progress. Each
//! case is run without `-quiet` too, to show that it does have something to say.

use assert_cmd::Command;

use anonbox::job::Method;

use crate::kcheck;
use crate::pipeline::vgh_config;

/// 40 records over age (VGH), sex (map) and a sensitive attribute with four even values; an
/// identifier; a row with '?' and a blank line, both skipped with a warning.
fn setup(dir: &std::path::Path) {
    let sens = "<sens><att index='3'><map><e cat='a' int='0'/><e cat='b' int='1'/>\
                <e cat='c' int='2'/><e cat='d' int='3'/></map></att></sens>";
    std::fs::write(dir.join("c.xml"), vgh_config(",", false, sens)).unwrap();
    let mut rows = String::new();
    for i in 0..40 {
        let age = 10 + (i * 7) % 80;
        let sex = if i % 2 == 0 { "F" } else { "M" };
        let s = ["a", "b", "c", "d"][i % 4];
        rows.push_str(&format!("{age},{sex},id{i},{s}\n"));
        if i == 10 {
            rows.push_str("33,?,idq,a\n\n");
        }
    }
    std::fs::write(dir.join("in.csv"), rows).unwrap();
    // An existing output: the toolbox's "will be overwritten" warning.
    std::fs::write(dir.join("out.csv"), "old").unwrap();
}

#[test]
fn quiet_silences_everything_but_errors_for_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d);
    // Every method there is (Method::NAMES also lists any added later).
    for method in Method::NAMES {
        let run = |extra: &[&str]| {
            Command::cargo_bin("anonbox")
                .unwrap()
                .current_dir(d)
                .args(["-config", "c.xml", "-method", method])
                .args(match method.to_ascii_lowercase().as_str() {
                    // Each method's own parameters: a flag it would ignore is an error.
                    "incognito_l" => &["-l", "2", "-c", "3"][..],
                    "incognito_t" => &["-t", "0.5"],
                    "anatomy" => &["-l", "2"],
                    _ => &["-k", "2"],
                })
                .args(["-verbose", "-report", "r.json"])
                .args(extra)
                .output()
                .unwrap()
        };
        let loud = run(&[]);
        assert!(loud.status.success(), "{method}: {loud:?}");
        let said = String::from_utf8_lossy(&loud.stderr);
        assert!(said.contains("skipped 1 blank lines"), "{method}: {said}");
        assert!(said.contains("finished in"), "{method}: {said}");
        if *method != "Anatomy" {
            assert!(
                said.contains("WARNING: Output file will be overwritten ("),
                "{method}: {said}"
            );
        }
        // A failed run replaces nothing, and does not say it will (the warning came before
        // the failure).
        std::fs::write(d.join("bad.csv"), "33,F,id1,a\n34,F,id2,b,extra\n").unwrap();
        let failed = run(&["-input", "bad.csv"]);
        assert_eq!(failed.status.code(), Some(1), "{method}: {failed:?}");
        let said = String::from_utf8_lossy(&failed.stderr);
        assert!(!said.contains("will be overwritten"), "{method}: {said}");
        assert!(
            said.ends_with("expected 4 fields, found 5\n"),
            "{method}: {said}"
        );
        let quiet = run(&["-quiet"]);
        assert!(quiet.status.success(), "{method}: {quiet:?}");
        assert_eq!(
            String::from_utf8_lossy(&quiet.stderr),
            "",
            "{method}: -quiet printed on stderr"
        );
        assert_eq!(
            String::from_utf8_lossy(&quiet.stdout),
            "",
            "{method}: -quiet printed on stdout"
        );
        if *method != "Anatomy" {
            // What the quiet run wrote is 2-anonymous (the output drops the identifier).
            let spec = kcheck::Spec {
                separator: ",",
                header: false,
                qid_columns: &[0, 1],
                top: &["[0:100)", "[0:1]"],
                k: 2,
                max_suppressed: 2,
                full_domain: *method != "Mondrian",
            };
            let found = kcheck::check(&d.join("out.csv"), &spec)
                .unwrap_or_else(|e| panic!("{method}: {e}"));
            assert_eq!(found.rows, 40, "{method}");
        }
        // Errors still show.
        let failed = run(&["-quiet", "-input", "missing.csv"]);
        assert_eq!(failed.status.code(), Some(2), "{method}");
        assert!(!failed.stderr.is_empty(), "{method}");
    }
}
