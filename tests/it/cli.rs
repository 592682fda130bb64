//! The `anonbox` binary on bad flags and bad configs: one line `anonbox: <message>` on stderr
//! naming the file and element (or the flag), exit status 2, and no output file afterwards.
//! (These runs stop before `cmd::run::run`; the happy path is tested with the pipeline.)

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::common;
use crate::config::{small_config, Workdir, SMALL_INPUT, SMALL_QID};

fn anonbox(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anonbox"));
    cmd.current_dir(dir);
    cmd
}

/// Runs anonbox in `w` with `args`, expects exit 2 and a one-line message containing every
/// `needle`, and checks that the folder still holds exactly the files it held before.
fn fails(w: &Workdir, args: &[&str], needles: &[&str]) {
    let before = w.files();
    let out = anonbox(w.dir.path())
        .args(args)
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("anonbox: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in {stderr}");
    }
    assert!(out.stdout.is_empty());
    assert_eq!(w.files(), before, "a failed run must not write files");
    assert!(!w.path("out.csv").exists());
}

/// A folder with the small input and `c.xml` built from root attributes and body.
fn setup(root_attrs: &str, body: &str) -> Workdir {
    let w = Workdir::new();
    w.write("in.csv", SMALL_INPUT);
    w.write("c.xml", &small_config(root_attrs, body));
    w
}

const SENS: &str = "<sens><att index='3'/></sens>";

#[test]
fn k_below_one() {
    let w = setup("k='0'", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config> attribute k: k must be at least 1 (got 0)"],
    );
    let w = setup("", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml", "-k", "-3"],
        &["-k: k must be at least 1 (got -3)"],
    );
}

#[test]
fn t_outside_zero_one() {
    let body = format!("{SMALL_QID}{SENS}");
    let w = setup("method='Incognito_T' t='1.5'", &body);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config> attribute t: t must be in (0, 1] (got 1.5)"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-t", "0"],
        &["-t: t must be in (0, 1] (got 0)"],
    );
}

#[test]
fn l_at_most_one_where_l_diversity_is_used() {
    let body = format!("{SMALL_QID}{SENS}");
    let w = setup("method='Incognito_L' l='1'", &body);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config> attribute l: Incognito_L: l must be greater than 1"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-method", "anatomy"],
        &["Anatomy: l must be greater than 1"],
    );
    let privacy = format!("{body}<privacy><entropy-l-diversity l='0.5'/></privacy>");
    let w = setup("method='flash'", &privacy);
    fails(
        &w,
        &["-config", "c.xml"],
        &[
            "c.xml:",
            "<entropy-l-diversity>: l must be greater than 1 (got 0.5",
        ],
    );
}

#[test]
fn child_interval_outside_its_parent() {
    let qid = "<qid><att index='0'><vgh value='[0:100)'><node value='[50:150)'/></vgh></att></qid>";
    let w = setup("", qid);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:5: <node value='[50:150)'>: Error in VGH structure, attribute index 0: [50:150) is not within its parent [0:100)"],
    );
}

#[test]
fn duplicate_index_across_id_qid_sens() {
    let w = setup("", &format!("<id><att index='1'/></id>{SMALL_QID}"));
    fails(&w, &["-config", "c.xml"], &["c.xml:6: <att index='1'>: column 1 is declared twice: as a quasi-identifier here and as an identifier on line 5"]);
    let w = setup("", &format!("{SMALL_QID}<sens><att index='0'/></sens>"));
    fails(&w, &["-config", "c.xml"], &["<att index='0'>: column 0 is declared twice: as a sensitive attribute here and as a quasi-identifier"]);
    let twice = "<qid><att index='0'><vgh value='[0:100)'/></att><att index='0'><vgh value='[0:100)'/></att></qid>";
    let w = setup("", twice);
    fails(
        &w,
        &["-config", "c.xml"],
        &["column 0 is declared twice: as a quasi-identifier here and as a quasi-identifier"],
    );
}

#[test]
fn index_beyond_the_row_width() {
    let w = setup("", &format!("{SMALL_QID}<sens><att index='4'/></sens>"));
    fails(
        &w,
        &["-config", "c.xml"],
        &[
            "c.xml:",
            "<att index='4'>: index 4 is beyond the row width: the first line of",
            "has 4 fields (separator ',';",
        ],
    );
    // The separator flag changes the width: with ';' the row is one field.
    let w = setup("", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml", "-separator", ";"],
        &[
            "<att index='1'>: index 1 is beyond the row width",
            "has 1 fields (separator ';'",
        ],
    );
}

#[test]
fn unequal_leaf_depth_for_full_domain_methods() {
    let qid = "<qid><att index='0'><vgh value='[0:100)'><node value='[0:50)'><node value='[0:25)'/><node value='[25:50)'/></node><node value='[50:100)'/></vgh></att></qid>";
    let w = setup("method='Datafly'", qid);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:5: <att index='0'>: Datafly: all leaf nodes should be at the same depth"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-method", "Incognito_K"],
        &["Incognito_K: all leaf nodes should be at the same depth"],
    );
}

#[test]
fn missing_config_file() {
    let w = Workdir::new();
    fails(
        &w,
        &[],
        &["anonbox: config.xml: Configuration file does not exist"],
    );
    fails(
        &w,
        &["-config", "nope.xml"],
        &["nope.xml: Configuration file does not exist"],
    );
}

#[test]
fn missing_input_file() {
    let w = setup("", SMALL_QID);
    std::fs::remove_file(w.path("in.csv")).unwrap();
    fails(
        &w,
        &["-config", "c.xml"],
        &[
            "c.xml:3: <input filename='in.csv'>: input file ",
            "in.csv does not exist",
        ],
    );
    let w = setup("", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml", "-input", "gone.csv"],
        &["-input: input file gone.csv does not exist"],
    );
    let w = setup("", SMALL_QID);
    std::fs::write(
        w.path("c.xml"),
        small_config("", SMALL_QID).replace("<input filename='in.csv'/>", ""),
    )
    .unwrap();
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config>: No input file: give -input FILE"],
    );
}

#[test]
fn output_equal_to_input() {
    let w = setup("", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml", "-output", "in.csv"],
        &["-output: output in.csv is the input file"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-output", "./in.csv"],
        &["is the input file"],
    );
    std::fs::write(
        w.path("c.xml"),
        small_config("", SMALL_QID).replace("out.csv", "in.csv"),
    )
    .unwrap();
    fails(
        &w,
        &["-config", "c.xml"],
        &[
            "c.xml:4: <output filename='in.csv'> attribute filename: output ",
            "is the input file",
        ],
    );
    fails(
        &w,
        &["-config", "c.xml", "-output", "nodir/o.csv"],
        &["-output: output folder nodir does not exist"],
    );
}

#[test]
fn missing_qid() {
    let w = setup("", "<sens><att index='3'/></sens>");
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config>: No quasi-identifier: the config has no <qid> element"],
    );
    let w = setup("", "<qid>\n</qid>");
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:5: <qid>: No quasi-identifier: <qid> declares no attribute"],
    );
}

#[test]
fn one_sensitive_attribute_for_incognito_l_t_and_anatomy() {
    let w = setup("method='Incognito_T'", SMALL_QID);
    fails(&w, &["-config", "c.xml"], &["c.xml:2: <config>: Incognito_T: set 1 (and only 1) sensitive attribute under <sens> (found 0)"]);
}

#[test]
fn malformed_xml() {
    let w = Workdir::new();
    w.write("in.csv", SMALL_INPUT);
    w.write("c.xml", "<config>\n<qid>\n</config>\n");
    fails(&w, &["-config", "c.xml"], &["c.xml:3: malformed XML"]);
    w.write("c.xml", "");
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml: Empty configuration file"],
    );
}

#[test]
fn bad_flags() {
    let w = setup("", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml", "-kk", "3"],
        &["unknown flag '-kk'; accepted flags: -config, -method, -k, -l, -c, -t, -suppThreshold"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-k"],
        &["anonbox: -k needs a value"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-k", "ten"],
        &["-k: 'ten' is not an integer"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-l", "x"],
        &["-l: 'x' is not a number"],
    );
    fails(&w, &["-config", "c.xml", "-method", "quick"], &["-method: unknown method 'quick'; accepted: Datafly, Mondrian, Incognito_K, Incognito_L, Incognito_T, Anatomy, Flash, OLA"]);
    fails(
        &w,
        &["-config", "c.xml", "-outputformat", "csv"],
        &["-outputFormat: unknown output format 'csv'; accepted: genVals, genValsDist, anatomy"],
    );
    fails(
        &w,
        &["-config", "c.xml", "-metric", "gain"],
        &["-metric: unknown metric 'gain'"],
    );
    fails(
        &w,
        &[
            "-config",
            "c.xml",
            "-suppression",
            "0.1",
            "-suppThreshold",
            "2",
        ],
        &["-suppression and -suppThreshold cannot be combined"],
    );
    fails(
        &w,
        &["-config", "c.xml", "--suppression=2"],
        &["-suppression: 2 is not a fraction in [0, 1]"],
    );
    fails(&w, &["c.xml"], &["unexpected argument 'c.xml'"]);
}

#[test]
fn bad_config_values() {
    let w = setup("method='fastest'", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config method='fastest'>: unknown method 'fastest'; accepted: Datafly"],
    );
    let w = setup("k='many'", SMALL_QID);
    fails(
        &w,
        &["-config", "c.xml"],
        &["c.xml:2: <config k='many'>: k='many' is not an integer"],
    );
    let w = setup(
        "",
        &SMALL_QID.replace("<e cat='Male' int='1'/>", "<e cat='Male' int='5'/>"),
    );
    fails(
        &w,
        &["-config", "c.xml"],
        &["Malformed VGH, 5 (category 'Male') cannot be generalized to any value"],
    );
}

#[test]
fn help_and_version_exit_zero() {
    let w = Workdir::new();
    anonbox(w.dir.path())
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--suppThreshold <N>"))
        .stdout(predicate::str::contains("Exit status"));
    anonbox(w.dir.path())
        .arg("-VERSION")
        .assert()
        .success()
        .stdout(format!("anonbox {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn census_config_errors_name_the_bundled_file() {
    // The bundled config's own output folder does not exist in the repository.
    let w = Workdir::new();
    let config = common::data("census-income-1k/config.xml");
    fails(
        &w,
        &["-config", config.to_str().unwrap()],
        &["config.xml:1: <output filename='Output/Output-Datafly_genVals.data'> attribute filename: output folder", "does not exist"],
    );
}

/// Misuse found by probing the binary: every case refused with exit 2 and one line, before the
/// input is read, and nothing written (the anatomy pair for `-` landed in files named `-_QIT`
/// and `-_ST`; a link loop was replaced by a file; a huge time limit panicked).
#[test]
fn misuse_is_refused_before_anything_is_written() {
    let w = setup("", SMALL_QID);
    let run = ["-config", "c.xml", "-output", "out.csv"];
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v: Vec<&'static str> = run.to_vec();
        v.extend_from_slice(extra);
        v
    };
    fails(
        &w,
        &with(&["-method", "Flash", "-outputFormat", "anatomy"]),
        &["Flash writes genVals only"],
    );
    fails(
        &w,
        &with(&["-method", "OLA", "-outputFormat", "genValsDist"]),
        &["OLA writes genVals only"],
    );
    fails(
        &w,
        &[
            "-config",
            "c.xml",
            "-method",
            "Datafly",
            "-outputFormat",
            "anatomy",
            "-output",
            "-",
        ],
        &["the anatomy format writes two files"],
    );
    fails(
        &w,
        &with(&["-method", "Flash", "-timeLimit", "1e300"]),
        &["time limit of 1e300 s is too large"],
    );
    fails(&w, &with(&["-input", "."]), &["input . is a folder"]);
    fails(
        &w,
        &with(&["-db", "new.db/"]),
        &["the database new.db/ names a folder"],
    );
    fails(&w, &with(&["-input", "/dev/stdin"]), &["is a stream"]);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("loop2", w.path("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", w.path("loop2")).unwrap();
        fails(
            &w,
            &["-config", "c.xml", "-output", "loop1"],
            &["the output loop1"],
        );
        assert!(std::fs::symlink_metadata(w.path("loop1"))
            .unwrap()
            .file_type()
            .is_symlink());
    }
}

/// `-threads` above the cores runs on the cores (a checker per thread: a huge count took
/// minutes and gigabytes); the report says how many ran.
#[test]
fn threads_above_the_cores_run_on_the_cores() {
    let w = setup("", SMALL_QID);
    anonbox(w.dir.path())
        .args([
            "-config", "c.xml", "-method", "Flash", "-k", "2", "-quiet", "-output", "out.csv",
        ])
        .args(["-threads", "1000000", "-report", "r.json"])
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(w.path("r.json")).unwrap()).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    assert_eq!(report["threads"].as_u64(), Some(cores));
}

/// A build without the `datafusion` feature refuses the engine before the input is read
/// (exit 2), naming the feature; nothing is written.
#[cfg(not(feature = "datafusion"))]
#[test]
fn a_build_without_datafusion_names_the_feature() {
    let dir = tempfile::tempdir().unwrap();
    let config = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml");
    let o = crate::common::anonbox(
        dir.path(),
        &[
            "-config",
            config.to_str().unwrap(),
            "-engine",
            "datafusion",
            "-output",
            "o.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("anonbox:") && err.contains("--features datafusion"),
        "{err}"
    );
    assert!(!dir.path().join("o.csv").exists());
}
