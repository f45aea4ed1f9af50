package com.codingame.game;

import com.codingame.gameengine.core.AbstractMultiplayerPlayer;

/** A player of Take: one answer line a turn (`lines` with the game parameter lines=N). */
public class Player extends AbstractMultiplayerPlayer {
    /** The answer lines of a turn (a static of the game's classes: one game's). */
    static int lines = 1;

    @Override
    public int getExpectedOutputLines() {
        return lines;
    }
}
