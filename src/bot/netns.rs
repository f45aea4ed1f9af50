//! Network namespaces for isolated bots, made once and reused from game to game while no bot
//! has touched them. Each isolated bot has a network namespace of its own (only its loopback,
//! see [`super::isolation`]); making one (`clone` with `CLONE_NEWNET`: the kernel registers a
//! few hundred sysctl files and sets up IPv4, IPv6 and netfilter for it) cost about 0.5 ms of
//! the referee's CPU, two thirds of a game's start and end with two instant bots, and takes
//! locks every namespace of the machine shares.
//!
//! A namespace is made here by a short-lived thread (`unshare`), its loopback brought up, and a
//! handful of its `/proc/net` files opened and read: its counters and socket counts as they
//! are with nothing in it. The bot's first process joins it (`setns`) before it does anything
//! else. When the bot has ended (its init reaped: no process of it is left), the namespace is
//! kept for a later bot only if every one of those files reads as it did when it was made:
//! - the loopback's traffic (`dev`): the bot sent no packet (the loopback is the namespace's
//!   only device, and no other can be added without CAP_NET_ADMIN, which no bot has there);
//! - the IPv4 and IPv6 counters (`snmp`, `snmp6`): nothing counted, not even a failed route
//!   lookup or send, which counts without a packet. Every IP packet sent or received in the
//!   namespace is counted there too (`OutRequests`, `InReceives`). So the counters left out
//!   (`netstat`'s TCP, MPTCP and IP extras, `xfrm_stat`, `stat/nf_conntrack`) move only where
//!   these did: each counts packets or connections (which take packets), and IPsec policies and
//!   connection tracking also need rules that only CAP_NET_ADMIN can add;
//! - its sockets (`sockstat`, `sockstat6`: none in use, none in TIME_WAIT; `sockets: used`
//!   counts every socket of the namespace, Unix ones too, whose abstract names are the
//!   namespace's: one kept alive in flight after its process ended is seen) and IPv6 flow
//!   labels (`ip6_flowlabel`, which outlive the socket that leased them).
//!
//! A bot that used the network in any way the kernel counts leaves a namespace that is
//! dropped (the kernel removes it) and the next bot gets a fresh one. So a later bot finds
//! nothing of an earlier one there: no counter moved, no socket, no port taken. (What is not
//! a namespace's own, such as the kernel's machine-wide socket memory figures, is shared by
//! every bot anyway.) Spares are kept process-wide, at most [`MAX_SPARES`].

use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// Spares kept at most (two bots a game, at most a few dozen games at once).
const MAX_SPARES: usize = 64;

/// The files of `/proc/net` whose text must read as when the namespace was made, in the order
/// they are read (the loopback's traffic first: a bot that used the network is told at once),
/// and whether the namespace must have them (the others exist only with IPv6). `sockstat` is
/// compared on its per-namespace figures only. (Reading them costs about 30 µs of the
/// referee's CPU a bot on the 2-core VM; `netstat` alone, left out, would be 30 more.)
const WATCHED: [(&str, bool); 6] = [
    ("dev", true),
    ("sockstat", true),
    ("snmp", true),
    ("snmp6", false),
    ("sockstat6", false),
    ("ip6_flowlabel", false),
];

/// Spares, made by any thread and given to any.
static SPARES: Mutex<Vec<NetNs>> = Mutex::new(Vec::new());

/// A network namespace with nothing in it (no process holds it): its file, and the `/proc/net`
/// files that tell whether a bot touched it, with their text when it was made.
#[derive(Debug)]
pub struct NetNs {
    ns: OwnedFd,
    watched: Vec<(&'static str, File, Vec<u8>)>,
}

impl NetNs {
    /// The namespace's file, for the bot's first process to join.
    pub(super) fn fd(&self) -> RawFd {
        self.ns.as_raw_fd()
    }

    /// Makes a namespace with its loopback up; `None` where the kernel refuses (no
    /// CAP_SYS_ADMIN, no network namespaces): the spawner then makes one with the bot.
    fn make() -> Option<NetNs> {
        // On a thread of its own, which ends in the new namespace: no thread of the referee
        // ever changes its own.
        std::thread::scope(|s| s.spawn(make_here).join().ok().flatten())
    }

    /// Whether every watched file reads as when the namespace was made.
    fn untouched(&self) -> bool {
        let mut text = Vec::new();
        self.watched.iter().all(|(name, file, made)| {
            read(file, &mut text)
                && match *name {
                    "sockstat" => comparable(name, &text) == *made,
                    _ => text == *made,
                }
        })
    }
}

/// Makes and fills a namespace on the calling thread, which it leaves in it.
fn make_here() -> Option<NetNs> {
    // SAFETY: unshare changes only this thread's network namespace.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return None;
    }
    let ns = File::open("/proc/thread-self/ns/net").ok()?;
    loopback_up();
    let mut watched = Vec::new();
    for (name, needed) in WATCHED {
        match File::open(format!("/proc/thread-self/net/{name}")) {
            Ok(file) => {
                let mut text = Vec::new();
                if !read(&file, &mut text) {
                    return None;
                }
                watched.push((name, file, comparable(name, &text)));
            }
            Err(_) if !needed => {}
            Err(_) => return None,
        }
    }
    Some(NetNs {
        ns: OwnedFd::from(ns),
        watched,
    })
}

/// Brings up the loopback of this thread's (new) network namespace.
fn loopback_up() {
    // SAFETY: a socket made, used for two ioctls on a zeroed request naming "lo", and closed.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return;
        }
        let sock = OwnedFd::from_raw_fd(fd);
        let mut req: libc::ifreq = std::mem::zeroed();
        req.ifr_name[0] = b'l' as libc::c_char;
        req.ifr_name[1] = b'o' as libc::c_char;
        if libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFFLAGS, &mut req) == 0 {
            req.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
            libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFFLAGS, &req);
        }
    }
}

/// The text of a `/proc/net` file held open, into `text` (read from its start: the kernel
/// writes it afresh for each read from offset 0). One read where `text` has room for it all:
/// a read that does not fill the room is taken as the end (a read past the start makes the
/// kernel write the whole text again, to find where it was). A file of many records (`dev`,
/// `ip6_flowlabel`) may also stop short at a record that does not fit the kernel's own buffer
/// (a page at first); then the text is cut, but only past a page of text, and no watched file
/// is near a page long when its namespace is made (`snmp6`, the longest, is one record of about
/// 3 KiB, which the kernel's buffer grows to hold): a cut text is longer than the one made, so
/// it still differs.
fn read(file: &File, text: &mut Vec<u8>) -> bool {
    let mut len = 0;
    loop {
        if text.len() < len + 4096 {
            text.resize(len + 16384, 0);
        }
        match file.read_at(&mut text[len..], len as u64) {
            Ok(n) => {
                let room = text.len() - len;
                len += n;
                if n < room {
                    text.truncate(len);
                    return true;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// What of a watched file's text is the namespace's own: all of it, but for `sockstat`, whose
/// TCP `orphan`, `alloc` and `mem` and UDP `mem` figures are the machine's.
fn comparable(name: &str, text: &[u8]) -> Vec<u8> {
    if name != "sockstat" {
        return text.to_vec();
    }
    let text = String::from_utf8_lossy(text);
    let mut own = String::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(head) = words.next() else {
            continue;
        };
        own.push_str(head);
        let rest: Vec<&str> = words.collect();
        for pair in rest.chunks(2) {
            let shared = matches!(
                (head, pair[0]),
                ("TCP:", "orphan" | "alloc" | "mem") | ("UDP:", "mem")
            );
            if !shared {
                own.push(' ');
                own.push_str(&pair.join(" "));
            }
        }
        own.push('\n');
    }
    own.into_bytes()
}

/// A namespace for a bot: a spare, else a new one; `None` where none can be made here.
pub(super) fn take() -> Option<NetNs> {
    let spare = SPARES.lock().unwrap_or_else(|e| e.into_inner()).pop();
    spare.or_else(NetNs::make)
}

/// Takes back the namespace of a bot that has ended (no process of it is left): kept for a
/// later bot if no bot touched it, else dropped.
pub(super) fn give_back(ns: NetNs) {
    if !ns.untouched() {
        return;
    }
    let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
    if spares.len() < MAX_SPARES {
        spares.push(ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockstat_is_compared_on_the_namespaces_own_figures() {
        let made = b"sockets: used 0\nTCP: inuse 0 orphan 3 tw 0 alloc 17 mem 158\nUDP: inuse 0 mem 4\nFRAG: inuse 0 memory 0\n";
        let later = b"sockets: used 0\nTCP: inuse 0 orphan 9 tw 0 alloc 2 mem 900\nUDP: inuse 0 mem 12\nFRAG: inuse 0 memory 0\n";
        assert_eq!(comparable("sockstat", made), comparable("sockstat", later));
        let time_wait = b"sockets: used 0\nTCP: inuse 0 orphan 3 tw 1 alloc 17 mem 158\nUDP: inuse 0 mem 4\nFRAG: inuse 0 memory 0\n";
        assert_ne!(
            comparable("sockstat", made),
            comparable("sockstat", time_wait)
        );
        let socket = b"sockets: used 1\nTCP: inuse 0 orphan 3 tw 0 alloc 17 mem 158\nUDP: inuse 0 mem 4\nFRAG: inuse 0 memory 0\n";
        assert_ne!(comparable("sockstat", made), comparable("sockstat", socket));
        // Other files are compared whole.
        assert_ne!(
            comparable("snmp", b"Ip: 1 0\n"),
            comparable("snmp", b"Ip: 1 1\n")
        );
    }
}
