//! Building a `Job` from XML configs and flags (library level): the bundled census config, the
//! header/hierarchy-file extensions, privacy models, and the checks that stop a bad config.
//! The command-line side of the same errors (exit codes, no output files) is in `cli.rs`.

use std::path::{Path, PathBuf};

use anonbox::cli::{parse_args, Command, RunArgs};
use anonbox::config::{build_job_with_warnings, utd_xml};
use anonbox::job::{
    Generalization, Job, Method, MetricKind, OutputFormat, PrivacyModel, SubsetSpec,
    SuppressionLimit, TDistance,
};

use crate::common;

/// A temporary folder with a config, an input and whatever else a test writes.
pub struct Workdir {
    pub dir: tempfile::TempDir,
}

impl Workdir {
    pub fn new() -> Workdir {
        Workdir {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, content: &str) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, content).unwrap();
        p
    }

    /// Files in the folder, sorted (to assert that nothing was written).
    pub fn files(&self) -> Vec<String> {
        crate::common::files_in(self.dir.path())
    }
}

/// A small comma-separated input: age, sex, zip, disease (4 columns, no header).
pub const SMALL_INPUT: &str = "34,Male,81667,flu\n45,Female,81675,cancer\n66,Male,81925,flu\n";

/// A config over [`SMALL_INPUT`] (`in.csv`, output `out.csv`) with the given root attributes and
/// body inside the root.
pub fn small_config(root_attrs: &str, body: &str) -> String {
    format!(
        "<?xml version='1.0'?>\n<config {root_attrs}>\n<input filename='in.csv'/>\n\
         <output filename='out.csv'/>\n{body}\n</config>\n"
    )
}

/// The usual `<qid>` of the small config: sex (mapped, flat) and age (two levels of leaves).
pub const SMALL_QID: &str = "<qid>\n\
  <att index='1'><map><e cat='Female' int='0'/><e cat='Male' int='1'/></map><vgh value='[0:1]'/></att>\n\
  <att index='0'><vgh value='[0:100)'>\n\
    <node value='[0:50)'><node value='[0:25)'/><node value='[25:50)'/></node>\n\
    <node value='[50:100)'><node value='[50:75)'/><node value='[75:100)'/></node>\n\
  </vgh></att>\n\
</qid>";

pub fn args(list: &[&str]) -> RunArgs {
    match parse_args(list.iter().copied()).unwrap() {
        Command::Run(r) => *r,
        other => panic!("{other:?}"),
    }
}

fn build(w: &Workdir, config: &str, flags: &[&str]) -> anonbox::Result<(Job, Vec<String>)> {
    let cfg = w.write("c.xml", config);
    let cfg = cfg.to_str().unwrap().to_string();
    let mut list = vec!["-config", &cfg];
    list.extend_from_slice(flags);
    build_job_with_warnings(&args(&list))
}

fn build_err(w: &Workdir, config: &str, flags: &[&str]) -> String {
    match build(w, config, flags) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

fn small() -> Workdir {
    let w = Workdir::new();
    w.write("in.csv", SMALL_INPUT);
    w
}

#[test]
fn census_config_builds_the_expected_job() {
    let out = Workdir::new();
    let output = out.path("o.data");
    let config = common::data("census-income-1k/config.xml");
    let (job, warnings) = build_job_with_warnings(&args(&[
        "-config",
        config.to_str().unwrap(),
        "-output",
        output.to_str().unwrap(),
    ]))
    .unwrap();
    assert!(warnings.is_empty());
    assert_eq!(job.method, Method::Datafly);
    assert_eq!(job.k, 10);
    assert_eq!(job.suppression, None, "suppThreshold in the XML is ignored");
    assert_eq!(
        job.input.path,
        common::data("census-income-1k/Input/census-income_1K.data")
    );
    assert_eq!(job.input.separator, ",");
    assert!(!job.input.header);
    assert_eq!(job.ids, [1, 2]);
    let order: Vec<usize> = job.qids.iter().map(|q| q.index).collect();
    assert_eq!(order, [12, 0]);
    assert_eq!(job.qids[0].name, "att12");
    let Generalization::Vgh(sex) = &job.qids[0].generalization else {
        panic!("sex has a VGH")
    };
    assert_eq!(sex.levels(), 2);
    assert_eq!(sex.point("Male"), Ok(1.0));
    assert_eq!(sex.path(1.0).unwrap(), ["[1.0]", "[0:1]"]);
    let Generalization::Vgh(age) = &job.qids[1].generalization else {
        panic!("age has a VGH")
    };
    assert_eq!(age.levels(), 4);
    assert_eq!(
        age.path(73.0).unwrap(),
        ["[73.0]", "[50:75)", "[50:100)", "[0:100)"]
    );
    assert_eq!(job.sensitive.len(), 1);
    assert_eq!(job.sensitive[0].index, 41);
    assert_eq!(
        job.sensitive[0].map.as_ref().unwrap().get("50000+."),
        Some(2)
    );
    assert_eq!(job.privacy, [PrivacyModel::KAnonymity { k: 10 }]);
    let output_spec = job.output.unwrap();
    assert_eq!(output_spec.path, output);
    assert_eq!(output_spec.format, OutputFormat::GenVals);
    assert_eq!(job.metric, MetricKind::Loss);
    assert_eq!(job.seed, 3345);
    assert_eq!(job.config_path, Some(config.clone()));
    assert_eq!(
        job.config_text.as_deref(),
        Some(std::fs::read_to_string(&config).unwrap().as_str())
    );
}

#[test]
fn bundled_readme_config_builds() {
    // configs/census-income-1k.xml is the README's main job; its paths are relative to configs/.
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/census-income-1k.xml");
    let (job, _) = build_job_with_warnings(&args(&["-config", config.to_str().unwrap()])).unwrap();
    assert_eq!(job.method, Method::Datafly);
    assert_eq!(
        std::fs::canonicalize(&job.input.path).unwrap(),
        std::fs::canonicalize(common::data("census-income-1k/Input/census-income_1K.data"))
            .unwrap()
    );
    assert_eq!(job.qids.len(), 2);
}

#[test]
fn flags_override_the_config() {
    let w = small();
    let cfg = small_config("k='5' method='datafly' l='3' c='0.5' t='0.4'", SMALL_QID);
    let (job, _) = build(&w, &cfg, &[]).unwrap();
    assert_eq!((job.k, job.l, job.c, job.t), (5, 3.0, 0.5, 0.4));
    assert_eq!(job.method, Method::Datafly);

    let other = w.write("other.csv", SMALL_INPUT);
    let (job, _) = build(
        &w,
        &cfg,
        &[
            "-k",
            "2",
            "-method",
            "mondrian",
            "-input",
            other.to_str().unwrap(),
            "-output",
            w.path("x.csv").to_str().unwrap(),
            "-outputFormat",
            "genValsDist",
            "-suppThreshold",
            "3",
            "-seed",
            "9",
            "-metric",
            "DM",
        ],
    )
    .unwrap();
    assert_eq!((job.k, job.l, job.c, job.t), (2, 3.0, 0.5, 0.4));
    assert_eq!(job.method, Method::Mondrian);
    assert_eq!(job.input.path, other);
    let output = job.output.unwrap();
    assert_eq!(output.path, w.path("x.csv"));
    assert_eq!(output.format, OutputFormat::GenValsDist);
    assert_eq!(job.suppression, Some(SuppressionLimit::Tuples(3)));
    assert_eq!(job.seed, 9);
    assert_eq!(job.metric, MetricKind::Dm);
}

/// A privacy flag the run would ignore is refused (exit 2): typing `-l 3` asks for
/// l-diversity, and a release without it would be less protection than asked. Values in the
/// config are the toolbox's defaults for every method and stay accepted.
#[test]
fn flags_a_run_would_ignore_are_refused() {
    let w = small();
    let cfg = small_config("k='5' l='3' c='0.5' t='0.4'", SMALL_QID);
    for (method, flag, value) in [
        ("Mondrian", "-l", "3"),
        ("Datafly", "-c", "2"),
        ("Flash", "-t", "0.2"),
        ("Incognito_K", "-l", "2"),
    ] {
        let e = build(&w, &cfg, &["-method", method, flag, value]).unwrap_err();
        assert!(matches!(e, anonbox::Error::Usage(_)), "{e}");
        let e = e.to_string();
        assert!(
            e.contains(&format!("{flag}: {method} would ignore it")),
            "{e}"
        );
    }
    for method in ["Mondrian", "Datafly", "Flash", "OLA", "Incognito_K"] {
        build(&w, &cfg, &["-method", method, "-k", "3"]).unwrap();
    }
    // A model of <privacy> takes its flag, with any method that enforces it.
    let privacy = format!(
        "{SMALL_QID}\n<sens><att index='2'/></sens>\n\
         <privacy><k-anonymity k='2'/><distinct-l-diversity l='2'/></privacy>"
    );
    let cfg = small_config("", &privacy);
    let (job, _) = build(&w, &cfg, &["-method", "Flash", "-l", "3", "-k", "4"]).unwrap();
    assert!(job
        .privacy
        .iter()
        .any(|m| matches!(m, PrivacyModel::DistinctL { l, .. } if *l == 3.0)));
    let e = build_err(&w, &cfg, &["-method", "Flash", "-t", "0.3"]);
    assert!(e.contains("-t: Flash would ignore it"), "{e}");
    // A method that enforces k-anonymity never drops a k beside <privacy>: -k, or the root's
    // k (the larger of it and the model's), is enforced as a model.
    let l_only = format!(
        "{SMALL_QID}\n<sens><att index='2'/></sens>\n\
         <privacy><distinct-l-diversity l='2'/></privacy>"
    );
    let k_of = |job: &Job| {
        job.privacy.iter().find_map(|m| match m {
            PrivacyModel::KAnonymity { k } => Some(*k),
            _ => None,
        })
    };
    for method in ["Incognito_K", "Flash"] {
        let (job, _) = build(
            &w,
            &small_config("", &l_only),
            &["-method", method, "-k", "5"],
        )
        .unwrap();
        assert_eq!(k_of(&job), Some(5), "{method}");
        let (job, _) = build(&w, &small_config("k='7'", &l_only), &["-method", method]).unwrap();
        assert_eq!(k_of(&job), Some(7), "{method}");
        let (job, _) = build(&w, &small_config("k='7'", &privacy), &["-method", method]).unwrap();
        assert_eq!(
            k_of(&job),
            Some(7),
            "{method}: the larger of the root's and the model's"
        );
        let (job, _) = build(&w, &small_config("k='1'", &privacy), &["-method", method]).unwrap();
        assert_eq!(k_of(&job), Some(2), "{method}");
    }
    let (job, warnings) = build(
        &w,
        &small_config("k='7'", &l_only),
        &["-method", "Incognito_L"],
    )
    .unwrap();
    assert_eq!(k_of(&job), None, "Incognito_L never used k");
    assert!(
        warnings
            .iter()
            .any(|x| x.contains("k = 7 of the config root is not enforced by Incognito_L")),
        "{warnings:?}"
    );
}

/// Beside `<privacy>`, a flag only makes a model stricter (the larger k or l, the smaller c or
/// t); a weaker one leaves the model as the config has it, with a warning naming the flag.
#[test]
fn flags_never_weaken_the_models_of_privacy() {
    let w = small();
    let privacy = format!(
        "{SMALL_QID}\n<sens><att index='2'/></sens>\n<privacy><k-anonymity k='4'/>\
         <recursive-cl-diversity c='0.5' l='3'/><t-closeness t='0.3'/></privacy>"
    );
    let cfg = small_config("", &privacy);
    let params = |job: &Job| {
        let mut p = (0u64, 0.0, 0.0, 0.0);
        for m in &job.privacy {
            match m {
                PrivacyModel::KAnonymity { k } => p.0 = *k,
                PrivacyModel::RecursiveCL { c, l, .. } => (p.1, p.2) = (*c, *l),
                PrivacyModel::TCloseness { t, .. } => p.3 = *t,
                _ => {}
            }
        }
        p
    };
    let weaker = ["-k", "2", "-c", "0.9", "-l", "2", "-t", "0.6"];
    for method in ["Flash", "Incognito_K", "Datafly"] {
        let flags: Vec<&str> = ["-method", method].iter().chain(&weaker).copied().collect();
        if method == "Datafly" {
            // Datafly enforces k-anonymity only: the other models refuse the config.
            let cfg = small_config(
                "",
                &format!("{SMALL_QID}<privacy><k-anonymity k='4'/></privacy>"),
            );
            let (job, warnings) = build(&w, &cfg, &["-method", method, "-k", "2"]).unwrap();
            assert_eq!(job.k, 4, "{method}");
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            continue;
        }
        let (job, warnings) = build(&w, &cfg, &flags).unwrap();
        assert_eq!(params(&job), (4, 0.5, 3.0, 0.3), "{method}");
        for flag in ["-k 2 ", "-c 0.9 ", "-l 2 ", "-t 0.6 "] {
            assert!(
                warnings
                    .iter()
                    .any(|x| x.contains(flag) && x.contains("weaker")),
                "{method} {flag}: {warnings:?}"
            );
        }
    }
    let stricter = [
        "-method", "Flash", "-k", "6", "-c", "0.25", "-l", "4", "-t", "0.1",
    ];
    let (job, warnings) = build(&w, &cfg, &stricter).unwrap();
    assert_eq!(params(&job), (6, 0.25, 4.0, 0.1));
    assert!(
        warnings.iter().all(|x| !x.contains("weaker")),
        "{warnings:?}"
    );
    // A bad flag is still a flag error, whatever the model says.
    let e = build_err(&w, &cfg, &["-method", "Flash", "-t", "1.5"]);
    assert!(e.contains("-t: t must be in (0, 1]"), "{e}");
    for c in ["0", "-1"] {
        let e = build_err(&w, &cfg, &["-method", "Flash", "-c", c]);
        assert!(e.starts_with("-c: c must be greater than 0"), "{e}");
    }
}

/// Recursive (c,l)-diversity takes a whole l: the toolbox rounded 2.5 to the nearest, ARX up.
#[test]
fn recursive_diversity_needs_a_whole_l() {
    let w = small();
    let privacy = |l: &str| {
        format!(
            "{SMALL_QID}\n<sens><att index='2'/></sens>\n<privacy><recursive-cl-diversity \
             c='2' l='{l}'/></privacy>"
        )
    };
    let e = build_err(
        &w,
        &small_config("", &privacy("2.5")),
        &["-method", "Flash"],
    );
    assert!(
        e.contains("<privacy>: recursive (c,l)-diversity needs a whole number l (got 2.5)"),
        "{e}"
    );
    let e = build_err(
        &w,
        &small_config("", &privacy("2")),
        &["-method", "Flash", "-l", "2.5"],
    );
    assert!(
        e.starts_with("-l: recursive (c,l)-diversity needs a whole number l"),
        "{e}"
    );
    let sens = format!("{SMALL_QID}\n<sens><att index='2'/></sens>");
    let e = build_err(
        &w,
        &small_config("", &sens),
        &["-method", "Incognito_L", "-l", "2.5", "-c", "2"],
    );
    assert!(e.starts_with("-l: recursive"), "{e}");
    build(
        &w,
        &small_config("", &sens),
        &["-method", "Incognito_L", "-l", "3", "-c", "2"],
    )
    .unwrap();
    // Entropy l-diversity (c <= 0) takes any l > 1.
    build(
        &w,
        &small_config("", &sens),
        &["-method", "Incognito_L", "-l", "2.5", "-c", "0"],
    )
    .unwrap();
}

/// Distinct l-diversity counts distinct values: a fractional l ran (the checks asked for
/// ceil(l) values, the report named l = 2.5) where ARX takes a whole number and the toolbox's
/// Anatomy rounded to the nearest (2.4 to 2, fewer than asked). Refused like recursive
/// (c,l)-diversity's, from `<privacy>`, from `-l` and for Anatomy; entropy l-diversity keeps
/// any l > 1.
#[test]
fn distinct_diversity_needs_a_whole_l() {
    let w = small();
    let privacy = |model: &str, l: &str| {
        format!(
            "{SMALL_QID}\n<sens><att index='2'/></sens>\n<privacy><{model}-l-diversity \
             l='{l}'/></privacy>"
        )
    };
    // From the config, from -l, and from the config beside a weaker -l (kept out).
    for (l, flags, want) in [
        ("2.5", &["-method", "Flash"][..], "<privacy>: distinct"),
        (
            "2",
            &["-method", "Incognito_L", "-l", "2.5"],
            "-l: distinct",
        ),
        (
            "2.5",
            &["-method", "Flash", "-l", "2"],
            "<privacy>: distinct",
        ),
    ] {
        let e = build_err(&w, &small_config("", &privacy("distinct", l)), flags);
        assert!(
            e.contains(&format!(
                "{want} l-diversity needs a whole number l (got 2.5): it counts distinct values"
            )),
            "{flags:?}: {e}"
        );
    }
    let sens = format!("{SMALL_QID}\n<sens><att index='2'/></sens>");
    let e = build_err(
        &w,
        &small_config("", &sens),
        &["-method", "Anatomy", "-l", "2.4"],
    );
    assert!(e.starts_with("-l: distinct l-diversity"), "{e}");
    build(
        &w,
        &small_config("", &privacy("distinct", "2")),
        &["-method", "Flash", "-l", "3"],
    )
    .unwrap();
    build(
        &w,
        &small_config("", &sens),
        &["-method", "Anatomy", "-l", "3"],
    )
    .unwrap();
    build(
        &w,
        &small_config("", &privacy("entropy", "2.5")),
        &["-method", "Flash"],
    )
    .unwrap();
}

/// A config or hierarchy "file" that is a folder or a device is refused as such (a config of
/// `/dev/zero` was read for ever; a folder was reported as missing).
#[test]
fn a_folder_or_a_device_is_no_config_and_no_hierarchy() {
    let w = small();
    for path in ["/dev/zero", "/tmp"] {
        if !Path::new(path).exists() {
            continue;
        }
        let e = build_job_with_warnings(&args(&["-config", path])).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
    std::fs::create_dir_all(w.path("folder.csv")).unwrap();
    let qid = "<qid><att index='0' name='age' hierarchy='folder.csv'/></qid>";
    let e = build_err(&w, &small_config("", qid), &["-method", "Flash"]);
    assert!(
        e.contains("folder.csv is a folder or a device, not a file"),
        "{e}"
    );
}

#[test]
fn defaults_follow_the_toolbox() {
    let w = small();
    let (job, _) = build(&w, &small_config("", SMALL_QID), &[]).unwrap();
    assert_eq!(job.method, Method::Mondrian);
    assert_eq!((job.k, job.l, job.c, job.t), (10, 10.0, 0.2, 0.2));
    assert_eq!(job.input.separator, ",");
    assert_eq!(job.output.unwrap().format, OutputFormat::GenVals);
    assert_eq!(job.suppression, None);
    assert!(job.sensitive.is_empty());
}

#[test]
fn suppression_fraction_from_config_or_flag() {
    let w = small();
    let (job, _) = build(&w, &small_config("suppression='0.04'", SMALL_QID), &[]).unwrap();
    assert_eq!(job.suppression, Some(SuppressionLimit::Fraction(0.04)));
    let (job, _) = build(
        &w,
        &small_config("suppression='0.04'", SMALL_QID),
        &["--suppression=0.02"],
    )
    .unwrap();
    assert_eq!(job.suppression, Some(SuppressionLimit::Fraction(0.02)));
    let e = build_err(&w, &small_config("suppression='1.5'", SMALL_QID), &[]);
    assert!(
        e.contains("c.xml:2: <config> attribute suppression: suppression 1.5 is not a fraction"),
        "{e}"
    );
}

#[test]
fn anatomy_forces_its_format_with_the_toolbox_warning() {
    let w = small();
    let body = format!("{SMALL_QID}<sens><att index='3'/></sens>");
    let (job, warnings) = build(&w, &small_config("method='anatomy' l='2'", &body), &[]).unwrap();
    assert_eq!(job.output.unwrap().format, OutputFormat::Anatomy);
    assert_eq!(
        warnings,
        [
            "anonbox: warning: the output format is anatomy, as the method is Anatomy (toolbox: \
          WARNING: Output format set to Anatomy, since anonymization method is Anatomy)"
        ]
    );
    assert_eq!(
        job.privacy,
        [PrivacyModel::DistinctL {
            attribute: 0,
            l: 2.0
        }]
    );
    let (_, warnings) = build(
        &w,
        &small_config("method='anatomy' l='2'", &body),
        &["-outputformat", "anatomy"],
    )
    .unwrap();
    assert!(warnings.is_empty());
    // Like the toolbox, existing output files are announced (anatomy: both of them).
    w.write("out_QIT.csv", "");
    w.write("out_ST.csv", "");
    // (The warning is given once the run has replaced them, see `tests/it/quiet.rs`.)
    let (job, warnings) = build(&w, &small_config("method='anatomy' l='2'", &body), &[]).unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(job.overwritten.len(), 2);
    assert!(
        job.overwritten[0].ends_with("out_QIT.csv"),
        "{:?}",
        job.overwritten
    );
    assert!(
        job.overwritten[1].ends_with("out_ST.csv"),
        "{:?}",
        job.overwritten
    );
}

#[test]
fn privacy_models_derived_from_the_method() {
    let w = small();
    let mapped = format!(
        "{SMALL_QID}<sens><att index='3'><map><e cat='flu' int='0'/><e cat='cancer' int='1'/></map></att></sens>"
    );
    let numeric = format!("{SMALL_QID}<sens><att index='2'/></sens>");
    let model = |cfg: &str, flags: &[&str]| build(&w, cfg, flags).unwrap().0.privacy;
    assert_eq!(
        model(&small_config("method='incognito_l' l='2'", &mapped), &[]),
        [PrivacyModel::RecursiveCL {
            attribute: 0,
            c: 0.2,
            l: 2.0
        }]
    );
    assert_eq!(
        model(
            &small_config("method='incognito_l' l='1.2'", &mapped),
            &["-c", "0"]
        ),
        [PrivacyModel::EntropyL {
            attribute: 0,
            l: 1.2
        }]
    );
    assert_eq!(
        model(
            &small_config("method='incognito_t'", &mapped),
            &["-t", "0.05"]
        ),
        [PrivacyModel::TCloseness {
            attribute: 0,
            t: 0.05,
            distance: TDistance::Equal
        }]
    );
    assert_eq!(
        model(&small_config("method='incognito_t'", &numeric), &[]),
        [PrivacyModel::TCloseness {
            attribute: 0,
            t: 0.2,
            distance: TDistance::Ordered
        }]
    );
    // A hierarchy file's labels are categories, not numbers: the equal distance.
    w.write("disease.csv", "flu;*\ncancer;*\n");
    let filed = format!("{SMALL_QID}<sens><att index='3' hierarchy='disease.csv'/></sens>");
    assert_eq!(
        model(&small_config("method='incognito_t'", &filed), &[]),
        [PrivacyModel::TCloseness {
            attribute: 0,
            t: 0.2,
            distance: TDistance::Equal
        }]
    );
    assert_eq!(
        model(&small_config("method='flash'", SMALL_QID), &["-k", "3"]),
        [PrivacyModel::KAnonymity { k: 3 }]
    );
}

/// The ADULT layout: a header line, ';' separator, hierarchy files, a <privacy> element.
fn adult_config(extra_sens: &str, privacy: &str) -> String {
    let data = common::data("adult");
    let d = data.display();
    format!(
        "<config method='flash' metric='loss' suppression='0.02'>\n\
         <input filename='{d}/adult.csv' separator=';' header='true'/>\n\
         <output filename='out.csv'/>\n\
         <qid>\n\
           <att index='0' name='sex' hierarchy='{d}/adult_hierarchy_sex.csv'/>\n\
           <att name='age' hierarchy='{d}/adult_hierarchy_age.csv'/>\n\
           <att index='2' hierarchy='{d}/adult_hierarchy_race.csv'/>\n\
         </qid>\n\
         <sens><att name='occupation' hierarchy='{d}/adult_hierarchy_occupation.csv'/>{extra_sens}</sens>\n\
         {privacy}\n\
         </config>"
    )
}

#[test]
fn header_names_and_hierarchy_files() {
    let w = Workdir::new();
    let privacy = "<privacy><k-anonymity k='5'/><distinct-l-diversity attribute='occupation' l='3'/>\
                   <entropy-l-diversity l='3'/><recursive-cl-diversity attribute='occupation' c='4' l='3'/>\
                   <t-closeness attribute='occupation' t='0.2' distance='hierarchical'/>\
                   <delta-presence dmin='0' dmax='0.5' subset-index='8'/></privacy>";
    let (job, _) = build(&w, &adult_config("", privacy), &[]).unwrap();
    assert!(job.input.header);
    assert_eq!(job.input.separator, ";");
    let names: Vec<_> = job
        .qids
        .iter()
        .map(|q| (q.index, q.name.as_str()))
        .collect();
    assert_eq!(names, [(0, "sex"), (1, "age"), (2, "race")]);
    let Generalization::File { hierarchy, path } = &job.qids[1].generalization else {
        panic!("age has a hierarchy file")
    };
    assert!(path.ends_with("adult_hierarchy_age.csv"));
    assert_eq!(hierarchy.levels(), 5);
    assert_eq!(hierarchy.name, "age");
    assert_eq!(job.sensitive[0].index, 7);
    assert_eq!(job.sensitive[0].name, "occupation");
    assert_eq!(job.sensitive[0].hierarchy.as_ref().unwrap().1.levels(), 3);
    assert_eq!(job.suppression, Some(SuppressionLimit::Fraction(0.02)));
    assert_eq!(
        job.privacy,
        [
            PrivacyModel::KAnonymity { k: 5 },
            PrivacyModel::DistinctL {
                attribute: 0,
                l: 3.0
            },
            PrivacyModel::EntropyL {
                attribute: 0,
                l: 3.0
            },
            PrivacyModel::RecursiveCL {
                attribute: 0,
                c: 4.0,
                l: 3.0
            },
            PrivacyModel::TCloseness {
                attribute: 0,
                t: 0.2,
                distance: TDistance::Hierarchical
            },
            PrivacyModel::DeltaPresence {
                dmin: 0.0,
                dmax: 0.5,
                subset: SubsetSpec::Column(8)
            },
        ]
    );
    // Flags raise the parameters of the matching models, never lower them.
    let (job, _) = build(&w, &adult_config("", privacy), &["-k", "2", "-l", "4"]).unwrap();
    assert_eq!(job.privacy[0], PrivacyModel::KAnonymity { k: 5 });
    assert_eq!(
        job.privacy[1],
        PrivacyModel::DistinctL {
            attribute: 0,
            l: 4.0
        }
    );
}

#[test]
fn privacy_attribute_must_be_declared_under_sens() {
    let w = Workdir::new();
    let e = build_err(
        &w,
        &adult_config(
            "",
            "<privacy><distinct-l-diversity attribute='salary-class' l='2'/></privacy>",
        ),
        &[],
    );
    assert!(e.contains("<distinct-l-diversity attribute='salary-class'>: attribute 'salary-class' is not declared under <sens> (declared: occupation)"), "{e}");
    let e = build_err(
        &w,
        &adult_config(
            "<att index='8'/>",
            "<privacy><entropy-l-diversity l='2'/></privacy>",
        ),
        &[],
    );
    assert!(
        e.contains(
            "attribute='NAME' is required: <sens> declares 2 attributes (occupation, salary-class)"
        ),
        "{e}"
    );
    let e = build_err(
        &w,
        &adult_config("", "<privacy><distinct-l-diversity l='1'/></privacy>"),
        &[],
    );
    assert!(
        e.contains("c.xml:") && e.contains("l must be greater than 1"),
        "{e}"
    );
    let e = build_err(
        &w,
        &adult_config("", "<privacy><t-closeness t='0'/></privacy>"),
        &[],
    );
    assert!(
        e.contains("<t-closeness>: t must be in (0, 1] (got 0)"),
        "{e}"
    );
}

#[test]
fn header_name_mismatch_and_unknown_names() {
    let w = Workdir::new();
    let cfg = adult_config("", "").replace("name='sex'", "name='gender'");
    let e = build_err(&w, &cfg, &[]);
    assert!(
        e.contains(
            "<att index='0' name='gender'>: name 'gender' does not match column 0 of the header"
        ),
        "{e}"
    );
    assert!(e.contains("'sex'"), "{e}");
    let cfg = adult_config("", "").replace("name='age'", "name='years'");
    let e = build_err(&w, &cfg, &[]);
    assert!(e.contains("no column named 'years' in the header"), "{e}");
    let w = small();
    let e = build_err(
        &w,
        &small_config("", "<qid><att name='age'><vgh value='[0:1]'/></att></qid>"),
        &[],
    );
    assert!(
        e.contains("name 'age' without an index needs a header line"),
        "{e}"
    );
}

#[test]
fn names_without_header_are_given_or_att_index() {
    let w = small();
    let qid = "<qid><att index='0' name='age'><vgh value='[0:100)'/></att><att index='1'><map><e cat='Male' int='1'/><e cat='Female' int='0'/></map><vgh value='[0:1]'/></att></qid>";
    let (job, _) = build(&w, &small_config("", qid), &[]).unwrap();
    assert_eq!(job.qids[0].name, "age");
    assert_eq!(job.qids[1].name, "att1");
}

#[test]
fn multi_character_separator_counts_fields() {
    let w = Workdir::new();
    w.write("in.csv", "\n\n34, Male, 81667\n45, Female, 81675\n");
    let qid = |i: usize| format!("<qid><att index='{i}'><vgh value='[0:100000]'/></att></qid>");
    let cfg = |i: usize| {
        small_config("", &qid(i)).replace(
            "<input filename='in.csv'/>",
            "<input filename='in.csv' separator=', '/>",
        )
    };
    assert!(build(&w, &cfg(2), &[]).is_ok());
    let e = build_err(&w, &cfg(3), &[]);
    assert!(
        e.contains("index 3 is beyond the row width") && e.contains("has 3 fields (separator ', '"),
        "{e}"
    );
}

#[test]
fn backslash_t_means_tab() {
    let w = Workdir::new();
    w.write("in.csv", "34\tMale\n45\tFemale\n");
    let cfg = small_config("", "<qid><att index='1'><vgh value='[0:100]'/></att></qid>");
    let (job, _) = build(&w, &cfg, &["-separator", "\\t"]).unwrap();
    assert_eq!(job.input.separator, "\t");
    let e = build_err(&w, &cfg, &["-separator", "t"]);
    assert!(e.contains("index 1 is beyond the row width"), "{e}");
    let tab = cfg.replace(
        "<input filename='in.csv'/>",
        "<input filename='in.csv' separator='&#09;'/>",
    );
    assert_eq!(build(&w, &tab, &[]).unwrap().0.input.separator, "\t");
}

#[test]
fn unequal_leaf_depth_only_matters_for_full_domain_methods() {
    let w = small();
    let qid = "<qid><att index='0'><vgh value='[0:100)'><node value='[0:50)'><node value='[0:25)'/><node value='[25:50)'/></node><node value='[50:100)'/></vgh></att></qid>";
    for method in ["mondrian", "anatomy"] {
        let body = format!("{qid}<sens><att index='3'/></sens>");
        assert!(
            build(
                &w,
                &small_config(&format!("method='{method}' l='2'"), &body),
                &[]
            )
            .is_ok(),
            "{method}"
        );
    }
    for method in ["datafly", "incognito_k", "flash", "ola"] {
        let e = build_err(&w, &small_config(&format!("method='{method}'"), qid), &[]);
        assert!(e.contains("<att index='0'>: ") && e.contains("all leaf nodes should be at the same depth: leaf [50:100) gives 3 levels, the first leaf 4"), "{e}");
    }
}

#[test]
fn hierarchy_file_errors_name_file_and_line() {
    let w = small();
    w.write("h.csv", "34;<50;*\n45;<50;*\n34;>=50;*\n");
    let e = build_err(
        &w,
        &small_config(
            "method='flash'",
            "<qid><att index='0' hierarchy='h.csv'/></qid>",
        ),
        &[],
    );
    assert!(
        e.ends_with(
            "h.csv:3: duplicate original value '34' (also on line 1, with other generalizations)"
        ),
        "{e}"
    );
    w.write("h.csv", "34;a;x\n45;a;y\n");
    let e = build_err(
        &w,
        &small_config(
            "method='flash'",
            "<qid><att index='0' hierarchy='h.csv'/></qid>",
        ),
        &[],
    );
    assert!(
        e.ends_with(
            "h.csv:2: not monotonic: 'a' at level 1 generalizes to 'y' here but to 'x' on line 1"
        ),
        "{e}"
    );
    let e = build_err(
        &w,
        &small_config(
            "method='flash'",
            "<qid><att index='0' hierarchy='nope.csv'/></qid>",
        ),
        &[],
    );
    assert!(
        e.contains("c.xml:5: <att index='0'>: hierarchy file ")
            && e.contains("nope.csv does not exist"),
        "{e}"
    );
}

#[test]
fn utd_xml_is_usable_on_its_own() {
    let c = utd_xml::load(&common::data("census-income-1k/config.xml")).unwrap();
    assert_eq!(c.root.tag, "<config>");
    assert_eq!(c.qid.unwrap().1.len(), 2);
}

/// A header name two columns share is refused: taking the first could leave the other released
/// as it is.
#[test]
fn a_name_two_columns_share_is_refused() {
    let w = Workdir::new();
    w.write("d.csv", "a,a,b\n1,2,x\n1,3,y\n");
    let cfg = "<?xml version='1.0'?>\n<config><input filename='d.csv' header='true'/>\
               <output filename='o.csv'/>\n<qid><att name='a'><vgh value='[0:10)'/></att></qid>\
               </config>\n";
    let e = build_err(&w, cfg, &["-method", "Datafly"]);
    assert!(
        e.contains("'a' names columns 0 and 1 of the header of"),
        "{e}"
    );
    let ok = cfg.replace("<att name='a'>", "<att index='1' name='a'>");
    build(&w, &ok, &["-method", "Datafly"]).unwrap();
}
