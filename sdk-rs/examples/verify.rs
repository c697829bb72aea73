//! Verify the Pythagoras chain at the formal level and print the verdict, the certificate URL and any failing step.
//!
//! Start a server and make a key that may run formal proofs, then run this example:
//!
//! ```sh
//! reasonforge serve --host 127.0.0.1 --port 8000 &
//! export REASONFORGE_API_KEY=$(reasonforge keys create --name demo --tier enterprise | head -n 1)
//! cargo run --example verify            # or: cargo run --example verify -- http://host:port
//! ```
//!
//! Exit status: 0 when the chain is VERIFIED, 1 for another verdict, 2 when the call itself failed.

use std::process::ExitCode;

use reasonforge::{Client, Domain, ProofLevel, Verdict, VerifyRequest};

fn main() -> ExitCode {
    let client = match std::env::args().nth(1) {
        // The key still comes from the environment: never from the command line, where `ps` shows it.
        Some(base_url) => match std::env::var("REASONFORGE_API_KEY") {
            Ok(key) => Client::new(&base_url, &key),
            Err(_) => Client::builder(&base_url).build(),
        },
        None => Client::from_env(),
    };
    let request = VerifyRequest::from_texts(
        Domain::Mathematics,
        ["Let x = 3 and y = 4", "By Pythagorean theorem, x² + y² = z²", "So z² = 9 + 16 = 25", "Therefore z = 5"],
    )
    .original_query("Find the hypotenuse of a right triangle with legs 3 and 4")
    .claimed_answer("z = 5")
    .proof_level(ProofLevel::Formal);
    let result = match client.and_then(|rf| rf.verify(&request)) {
        Ok(result) => result,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    match result.verdict {
        Some(verdict) => println!("{verdict}"),
        None => println!("no verdict (job {})", result.status),
    }
    println!("{}", result.certificate_url.as_deref().unwrap_or("no certificate"));
    if result.verdict == Some(Verdict::Verified) {
        return ExitCode::SUCCESS;
    }
    for failure in result.failure_points.iter().flatten() {
        println!("Step {} failed: {}", failure.step_id, failure.error);
        println!("  Last valid step: {}", failure.step_id - 1);
    }
    ExitCode::from(1)
}
