package com.codingame.game;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import com.codingame.gameengine.core.AbstractPlayer.TimeoutException;
import com.codingame.gameengine.core.AbstractReferee;
import com.codingame.gameengine.core.MultiplayerGameManager;
import com.google.inject.Inject;

/**
 * Each turn every player is sent the turn's number and names a digit, added to its score. The
 * number of turns is read from the resource turns.txt (so a build that leaves resources out
 * fails), and a static counter tells how many games this class has seen (so a launcher that
 * shares classes between games shows it in the summary).
 */
public class Referee extends AbstractReferee {
    private static int gamesSeen = 0;

    @Inject
    private MultiplayerGameManager<Player> gameManager;

    private int turns;

    @Override
    public void init() {
        gamesSeen++;
        try (InputStream in = Referee.class.getResourceAsStream("/turns.txt")) {
            turns = Integer.parseInt(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim());
        } catch (Exception e) {
            throw new RuntimeException("no turns.txt resource", e);
        }
        gameManager.setMaxTurns(turns);
        gameManager.addToGameSummary("games seen by this class: " + gamesSeen);
    }

    @Override
    public void gameTurn(int turn) {
        for (Player p : gameManager.getActivePlayers()) {
            p.sendInputLine(String.valueOf(turn));
            p.execute();
        }
        for (Player p : gameManager.getActivePlayers()) {
            try {
                String answer = p.getOutputs().get(0).trim();
                if (!answer.matches("[0-9]")) {
                    p.deactivate("not a digit: " + answer);
                    p.setScore(-1);
                    continue;
                }
                p.setScore(p.getScore() + Integer.parseInt(answer));
            } catch (TimeoutException e) {
                p.deactivate("timeout");
                p.setScore(-1);
            }
        }
        if (turn >= turns) {
            gameManager.endGame();
        }
    }
}
