//! trec_eval's command line, read as glibc's `getopt_long` reads it with
//! trec_eval's option string `hvqm:cl:nD:JN:M:R:T:oZ:` and long options:
//! options and operands in any order, clustered short options, attached or
//! separate arguments, `--name=value`, unambiguous prefixes of long names,
//! `--` ending the options, and glibc's messages for bad options.

/// trec_eval's long options: (name, takes an argument, short option).
const LONG: &[(&str, bool, char)] = &[
    ("help", false, 'h'),
    ("version", false, 'v'),
    ("query_eval_wanted", false, 'q'),
    ("measure", true, 'm'),
    ("complete_rel_info_wanted", false, 'c'),
    ("level_for_rel", true, 'l'),
    ("nosummary", false, 'n'),
    ("Debug_level", true, 'D'),
    ("Judged_docs_only", false, 'J'),
    ("Number_docs_in_coll", true, 'N'),
    ("Max_retrieved_per_topic", true, 'M'),
    ("Rel_info_format", true, 'R'),
    ("Results_format", true, 'T'),
    ("Output_old_results_format", true, 'o'),
    ("Zscore", true, 'Z'),
];

const SHORT_WITH_ARG: &str = "mlDNMRTZ";
const SHORT_FLAGS: &str = "hvqcnJo";

/// One step of option parsing, in command-line order.
#[derive(Debug, PartialEq)]
pub enum Opt {
    Flag(char, Option<String>),
    /// getopt's message (it then returns '?')
    Error(String),
}

/// The options in order (stopping after the first error) and the operands.
pub fn parse(args: &[String]) -> (Vec<Opt>, Vec<String>) {
    let prog = "trec_eval";
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let found = LONG.iter().find(|o| o.0 == name).or_else(|| {
                let matches: Vec<_> = LONG.iter().filter(|o| o.0.starts_with(name)).collect();
                (matches.len() == 1).then(|| matches[0])
            });
            let Some(&(full, takes, c)) = found else {
                let matches: Vec<_> = LONG.iter().filter(|o| o.0.starts_with(name)).collect();
                opts.push(Opt::Error(if matches.len() > 1 {
                    let list: String = matches.iter().map(|o| format!(" '--{}'", o.0)).collect();
                    format!("{prog}: option '--{name}' is ambiguous; possibilities:{list}\n")
                } else {
                    format!("{prog}: unrecognized option '{a}'\n")
                }));
                return (opts, operands);
            };
            match (takes, value) {
                (false, Some(_)) => {
                    opts.push(Opt::Error(format!(
                        "{prog}: option '--{full}' doesn't allow an argument\n"
                    )));
                    return (opts, operands);
                }
                (false, None) => opts.push(Opt::Flag(c, None)),
                (true, Some(v)) => opts.push(Opt::Flag(c, Some(v))),
                (true, None) => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        opts.push(Opt::Flag(c, Some(v.clone())));
                    }
                    None => {
                        opts.push(Opt::Error(format!(
                            "{prog}: option '--{full}' requires an argument\n"
                        )));
                        return (opts, operands);
                    }
                },
            }
            continue;
        }
        if a.len() > 1 && a.starts_with('-') {
            let chars: Vec<char> = a.chars().skip(1).collect();
            let mut k = 0;
            while k < chars.len() {
                let c = chars[k];
                k += 1;
                if SHORT_FLAGS.contains(c) {
                    opts.push(Opt::Flag(c, None));
                } else if SHORT_WITH_ARG.contains(c) {
                    if k < chars.len() {
                        opts.push(Opt::Flag(c, Some(chars[k..].iter().collect())));
                    } else if let Some(v) = args.get(i) {
                        i += 1;
                        opts.push(Opt::Flag(c, Some(v.clone())));
                    } else {
                        opts.push(Opt::Error(format!(
                            "{prog}: option requires an argument -- '{c}'\n"
                        )));
                        return (opts, operands);
                    }
                    break;
                } else {
                    opts.push(Opt::Error(format!("{prog}: invalid option -- '{c}'\n")));
                    return (opts, operands);
                }
            }
            continue;
        }
        operands.push(a.clone());
    }
    (opts, operands)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn short_long_attached_and_separate_forms() {
        let (o, rest) = parse(&argv(
            "-q -mrelstring.20 -m P.5 q.txt -l2 --measure=map --meas ndcg r.txt -qc",
        ));
        assert_eq!(
            o,
            vec![
                Opt::Flag('q', None),
                Opt::Flag('m', Some("relstring.20".into())),
                Opt::Flag('m', Some("P.5".into())),
                Opt::Flag('l', Some("2".into())),
                Opt::Flag('m', Some("map".into())),
                Opt::Flag('m', Some("ndcg".into())),
                Opt::Flag('q', None),
                Opt::Flag('c', None),
            ]
        );
        assert_eq!(rest, argv("q.txt r.txt"));
        let (_, rest) = parse(&argv("-q -- -x y"));
        assert_eq!(rest, argv("-x y"));
        let (_, rest) = parse(&argv("q -"));
        assert_eq!(rest, argv("q -"));
    }

    #[test]
    fn bad_options_get_glibc_s_messages() {
        let (o, _) = parse(&argv("-x"));
        assert_eq!(
            o,
            vec![Opt::Error("trec_eval: invalid option -- 'x'\n".into())]
        );
        let (o, _) = parse(&argv("-m"));
        assert_eq!(
            o,
            vec![Opt::Error(
                "trec_eval: option requires an argument -- 'm'\n".into()
            )]
        );
        let (o, _) = parse(&argv("--bogus=1"));
        assert_eq!(
            o,
            vec![Opt::Error(
                "trec_eval: unrecognized option '--bogus=1'\n".into()
            )]
        );
        let (o, _) = parse(&argv("--help=1"));
        assert_eq!(
            o,
            vec![Opt::Error(
                "trec_eval: option '--help' doesn't allow an argument\n".into()
            )]
        );
    }
}
