package com.codingame.game;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import com.codingame.gameengine.core.AbstractPlayer.TimeoutException;
import com.codingame.gameengine.core.AbstractReferee;
import com.codingame.gameengine.core.MultiplayerGameManager;
import com.google.inject.Inject;

/**
 * Take, arbiter's test game for 2 to 8 players. Each player is first sent one line "P I" (the
 * number of players and its own index), in a first frame that executes no player (as many
 * CodinGame games send their global information). Then each round every active player is sent
 * one line "X" (a number from 1 to 100 drawn from the seed, the same for everyone that round)
 * and answers a number from 0 to X, which it scores. An answer that is not such a number, a
 * timeout or a crash deactivates the player (score -1); the game ends after `rounds` rounds
 * (default 5) or when fewer than two players are active. The league level caps the numbers
 * (league 1: X at most 100; league 2 and up: at most 1000). Test hooks: game parameter
 * `fail=N` throws at round N (`fail=init`: in init), `hang=N` stops answering at round N;
 * with `slowtrace=1` the exception thrown takes 700 ms to tell its message after the first time
 * (the engine's [[FAIL]] is written at once, the stack trace on stderr 700 ms later).
 * `hostile=MARKER` makes the game leave things behind for the next game in the same JVM, after
 * telling in its first summary what an earlier game left ("hostile MARKER: property N, file
 * found|none, child alive|none, jvm ID"): it bumps the system property `take.MARKER`, writes
 * the file /tmp/take-MARKER and starts a child process (`sh -c 'sleep 600; : MARKER'`);
 * `thread=1` starts a thread that runs on after the game. `turnms=N` and `firstturnms=N` set the
 * game's own limits (default 100 and 1000); `lines=N` asks N answer lines a turn (the first
 * counts).
 */
public class Referee extends AbstractReferee {
    @Inject private MultiplayerGameManager<Player> gameManager;

    private Random random;
    private int rounds;
    private int fail;
    private int hang;
    private int max;

    @Override
    public void init() {
        Properties params = gameManager.getGameParameters();
        if ("init".equals(params.getProperty("fail"))) {
            throw new RuntimeException("Take was asked to fail in init");
        }
        random = new Random(gameManager.getSeed());
        rounds = Integer.parseInt(params.getProperty("rounds", "5"));
        Player.lines = Integer.parseInt(params.getProperty("lines", "1"));
        fail = Integer.parseInt(params.getProperty("fail", "0"));
        hang = Integer.parseInt(params.getProperty("hang", "0"));
        max = gameManager.getLeagueLevel() >= 2 ? 1000 : 100;
        gameManager.setFirstTurnMaxTime(Integer.parseInt(params.getProperty("firstturnms", "1000")));
        gameManager.setTurnMaxTime(Integer.parseInt(params.getProperty("turnms", "100")));
        String marker = params.getProperty("hostile");
        if (marker != null) {
            leaveThingsBehind(marker);
        }
        if ("1".equals(params.getProperty("thread"))) {
            Thread stays = new Thread(() -> {
                while (true) {
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        // Told to end: it does not.
                    }
                }
            }, "take-stays");
            stays.setDaemon(true);
            stays.start();
        }
        gameManager.setMaxTurns(rounds + 1);
        for (Player p : gameManager.getPlayers()) {
            p.sendInputLine(gameManager.getPlayerCount() + " " + p.getIndex());
        }
    }

    @Override
    public void gameTurn(int turn) {
        // The first frame deals: no player is executed, and the engine sends player 0's input
        // (its line "P I") in a frame that asks for no answer.
        if (turn == 1) {
            return;
        }
        int round = turn - 1;
        if (round == fail) {
            String why = "Take was asked to fail at round " + round;
            if ("1".equals(gameManager.getGameParameters().getProperty("slowtrace"))) {
                throw new SlowToTell(why);
            }
            throw new RuntimeException(why);
        }
        if (round == hang) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }
        int x = 1 + random.nextInt(max);
        List<Player> active = gameManager.getActivePlayers();
        // Every player is sent its input and executed before any answer is read (the engine
        // forbids sending after reading): they play the round simultaneously.
        for (Player p : active) {
            p.sendInputLine(String.valueOf(x));
            p.execute();
        }
        for (Player p : active) {
            try {
                List<String> outputs = p.getOutputs();
                String answer = outputs.get(0).trim();
                int taken;
                try {
                    taken = Integer.parseInt(answer);
                } catch (NumberFormatException e) {
                    taken = -1;
                }
                if (taken < 0 || taken > x) {
                    p.deactivate(p.getNicknameToken() + ": invalid action \"" + answer + "\" (0 to " + x + " expected)");
                    p.setScore(-1);
                    continue;
                }
                p.setScore(p.getScore() + taken);
                gameManager.addToGameSummary(p.getNicknameToken() + " takes " + taken + " of " + x);
            } catch (TimeoutException e) {
                p.deactivate(p.getNicknameToken() + " timeout!");
                p.setScore(-1);
            }
        }
        Map<String, Integer> view = new HashMap<>();
        for (Player p : gameManager.getPlayers()) {
            view.put("p" + p.getIndex(), p.getScore());
        }
        gameManager.setViewData("scores", view);
        if (gameManager.getActivePlayers().size() < 2) {
            gameManager.endGame();
        }
    }

    /** Tells what an earlier game left for `marker`, then leaves the same for the next game. */
    private void leaveThingsBehind(String marker) {
        String key = "take." + marker;
        int property = Integer.parseInt(System.getProperty(key, "0"));
        java.io.File file = new java.io.File("/tmp/take-" + marker);
        boolean found = file.exists();
        boolean child = ProcessHandle.allProcesses()
            .anyMatch(p -> p.info().commandLine().orElse("").contains(marker));
        java.lang.management.RuntimeMXBean jvm = java.lang.management.ManagementFactory.getRuntimeMXBean();
        gameManager.addToGameSummary("hostile " + marker + ": property " + property
            + ", file " + (found ? "found" : "none") + ", child " + (child ? "alive" : "none")
            + ", jvm " + jvm.getName() + "@" + jvm.getStartTime());
        System.setProperty(key, String.valueOf(property + 1));
        try {
            java.nio.file.Files.write(file.toPath(), "left by Take".getBytes());
            new ProcessBuilder("sh", "-c", "sleep 600; : " + marker).start();
        } catch (java.io.IOException e) {
            throw new RuntimeException(e);
        }
    }

    /** An exception whose message is slow to come after the first time it is asked for. */
    private static class SlowToTell extends RuntimeException {
        private int told;

        SlowToTell(String why) {
            super(why);
        }

        @Override
        public synchronized String getMessage() {
            if (told++ > 0) {
                try {
                    Thread.sleep(700);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.getMessage();
        }
    }
}
