//! `-quiet` silences everything but errors, for every method: no warnings (config, skipped
//! rows, blank lines), no summary, no console lines (even with `-verbose`), no progress. Each
//! case is run without `-quiet` too, to show that it does have something to say.

use assert_cmd::Command;

use crate::kcheck;

const METHODS: &[&str] = &[
    "Datafly",
    "Mondrian",
    "Incognito_K",
    "Incognito_L",
    "Incognito_T",
    "Anatomy",
    "Flash",
    "OLA",
    "BFS",
    "Optimal",
];

/// 40 records over age (VGH), sex (map) and a sensitive attribute with four even values; an
/// identifier; a row with '?' and a blank line, both skipped with a warning.
fn setup(dir: &std::path::Path) {
    std::fs::write(
        dir.join("c.xml"),
        "<config k='2' method='Datafly'>\n\
         <input filename='in.csv' separator=','/>\n\
         <output filename='out.csv' format='genVals'/>\n\
         <id><att index='2'/></id>\n\
         <qid>\n\
         <att index='0'><vgh value='[0:100)'><node value='[0:50)'><node value='[0:25)'/>\
         <node value='[25:50)'/></node><node value='[50:100)'><node value='[50:75)'/>\
         <node value='[75:100)'/></node></vgh></att>\n\
         <att index='1'><map><e cat='F' int='0'/><e cat='M' int='1'/></map><vgh value='[0:1]'/></att>\n\
         </qid>\n\
         <sens><att index='3'><map><e cat='a' int='0'/><e cat='b' int='1'/><e cat='c' int='2'/>\
         <e cat='d' int='3'/></map></att></sens>\n\
         </config>\n",
    )
    .unwrap();
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
    for method in METHODS {
        let run = |extra: &[&str]| {
            Command::cargo_bin("anonbox")
                .unwrap()
                .current_dir(d)
                .args(["-config", "c.xml", "-method", method])
                .args(["-k", "2", "-l", "2", "-c", "3", "-t", "0.5"])
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
