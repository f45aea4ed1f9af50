// The view of Take, arbiter's test game: written for arbiter's tests of the replays that draw
// an SDK game with its own viewer (the engine's Drawer runs this module on the frames' view
// data, `scores`, which Take's referee sets each round).
import { ScoresModule } from './take/ScoresModule.js'

export const modules = [ScoresModule]
export const gameName = 'Take'
