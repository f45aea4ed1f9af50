//! tests
use super::*;
use crate::game::perft;
use crate::rng::Rng;

#[test]
fn explore() {
    for (seats, partners) in [(2, false), (4, false), (4, true)] {
        let g = MoscowIce::new(seats, partners);
        println!("{seats} {partners}: {}", g.position_text());
        println!("{:?}", g.legal_moves());
        for d in 1..=4 {
            println!("perft {d} = {}", perft(&g, d));
        }
        let mut lens = Vec::new();
        let mut ends = 0;
        for seed in 0..40 {
            let mut g = MoscowIce::new(seats, partners);
            let mut rng = Rng::new(seed);
            let mut t = 0;
            while g.outcome().is_none() && t < 5000 {
                let n = g.legal_moves().len();
                g.play(rng.below(n));
                t += 1;
            }
            if g.outcome().is_some() { ends += 1; }
            lens.push(t);
        }
        lens.sort();
        println!("ended {ends}/40 lens {:?}", lens);
    }
}
