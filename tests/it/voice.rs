//! Messages in one voice (issue 34): every line the binary writes on stderr for the error cases
//! of the suite starts `anonbox:` (errors, warnings, the toolbox's words quoted inside ours),
//! and none shouts (`!!!`, the toolbox's `No anonymous generalizations!!!`). A run that finds no
//! release names its models and the parameter to relax; `anonbox hierarchy` does not replace
//! a file without `--force`.

use std::path::Path;

use crate::common::{anonbox, data, workdir};

/// Runs `args` in `dir`; asserts it failed with `code` and that each stderr line is ours.
fn fails_in_one_voice(dir: &Path, args: &[&str], code: i32) -> String {
    let o = anonbox(dir, args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert!(!err.trim().is_empty(), "{args:?}: no message");
    for line in err.lines() {
        assert!(line.starts_with("anonbox: "), "{args:?}: {line}");
        assert!(!line.contains("!!!"), "{args:?}: {line}");
    }
    err
}

#[test]
fn errors_and_warnings_speak_in_one_voice() {
    let dir = workdir("census-income-1k.xml");
    let d = dir.path();
    let census = ["-config", "configs/census-income-1k.xml"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        census
            .iter()
            .copied()
            .chain(extra.iter().copied())
            .collect()
    };
    // Flags and configs (exit 2).
    fails_in_one_voice(d, &with(&["-method", "Nope"]), 2);
    fails_in_one_voice(d, &with(&["-k", "0"]), 2);
    fails_in_one_voice(d, &["-config", "missing.xml"], 2);
    fails_in_one_voice(d, &["--no-such-flag"], 2);
    fails_in_one_voice(d, &["init", "missing.csv"], 2);
    fails_in_one_voice(d, &["audit", "missing.csv", "--qi", "a"], 2);
    // Incognito_L with the toolbox's default (c, l) = (0.2, 10) on two sensitive values: no
    // release; the message names the model and what to relax.
    let err = fails_in_one_voice(
        d,
        &with(&["-method", "Incognito_L", "-output", "x.data"]),
        1,
    );
    assert!(
        err.contains("Incognito_L: no generalization satisfies recursive-(0.2,10)-diversity")
            && err.contains("relax l (-l) or c (-c, now 0.2"),
        "{err}"
    );
    // With -verbose the toolbox's own line is on stdout, for a script that reads it.
    let o = anonbox(
        d,
        &with(&["-method", "Incognito_L", "-output", "x.data", "-verbose"]),
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("No anonymous generalizations!!!"));
    // Anatomy that cannot be l-diverse.
    let err = fails_in_one_voice(
        d,
        &with(&["-method", "Anatomy", "-l", "5", "-output", "x.data"]),
        1,
    );
    assert!(err.contains("give -l 2 or less"), "{err}");
    // A warning is ours too, with the toolbox's words inside for a script that looks for them.
    let out = d.join("out.data");
    std::fs::write(&out, "old\n").unwrap();
    let o = anonbox(
        d,
        &with(&["-method", "Datafly", "-k", "10", "-output", "out.data"]),
    );
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let warning = err.lines().find(|l| l.contains("WARNING")).unwrap();
    assert!(
        warning.starts_with("anonbox: warning: replaced out.data (toolbox: WARNING: Output file will be overwritten (out.data))"),
        "{warning}"
    );
    // hierarchy --output does not replace a file without --force.
    let adult = data("adult/adult.csv");
    let args = [
        "hierarchy",
        "intervals",
        "--input",
        adult.to_str().unwrap(),
        "--separator",
        ";",
        "--header",
        "--column",
        "age",
        "--widths",
        "5,10",
        "--output",
        "h.csv",
    ];
    std::fs::write(d.join("h.csv"), "mine\n").unwrap();
    let err = fails_in_one_voice(d, &args, 2);
    assert!(err.contains("give --force to replace it"), "{err}");
    assert_eq!(std::fs::read_to_string(d.join("h.csv")).unwrap(), "mine\n");
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(anonbox(d, &forced).status.success());
    assert!(std::fs::read_to_string(d.join("h.csv"))
        .unwrap()
        .starts_with("17;"));
}
