package com.codingame.game;

import com.codingame.gameengine.core.AbstractMultiplayerPlayer;

/** A player answers one line a turn. */
public class Player extends AbstractMultiplayerPlayer {
    @Override
    public int getExpectedOutputLines() {
        return 1;
    }
}
