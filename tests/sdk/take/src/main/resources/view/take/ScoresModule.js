// Take's picture: a felt table (an asset), and for each player a bar in its colour as tall as
// its score (drawn between two frames as the frame progresses), its name, and the frame's
// number. A player out of the game (score -1) has a grey bar.
import { WIDTH, HEIGHT } from '../core/constants.js'

/* global PIXI */

export class ScoresModule {
  constructor (assets) {
    this.states = []
    this.players = []
  }

  static get moduleName () {
    return 'scores'
  }

  static get name () {
    return 'scores'
  }

  handleGlobalData (players, globalData) {
    this.players = players
  }

  handleFrameData (frameInfo, data) {
    const before = this.states.length ? this.states[this.states.length - 1].scores : null
    const scores = data
      ? this.players.map(p => data['p' + p.index] || 0)
      : before || this.players.map(() => 0)
    const state = { number: frameInfo.number, scores }
    this.states.push(state)
    return state
  }

  reinitScene (container, canvasData) {
    this.container = container
    const table = PIXI.Sprite.from('table.png')
    table.width = WIDTH
    table.height = HEIGHT
    container.addChild(table)
    this.bars = new PIXI.Graphics()
    container.addChild(this.bars)
    const slot = WIDTH / Math.max(1, this.players.length)
    this.players.forEach((p, i) => {
      const name = new PIXI.Text(p.name, { fill: '#ffffff', fontSize: 56, fontWeight: 'bold' })
      name.anchor.set(0.5, 0)
      name.x = slot * (i + 0.5)
      name.y = HEIGHT - 120
      container.addChild(name)
    })
    this.frameText = new PIXI.Text('', { fill: '#ffffff', fontSize: 44 })
    this.frameText.x = 40
    this.frameText.y = 30
    container.addChild(this.frameText)
  }

  updateScene (previous, current, progress) {
    const top = Math.max(100, ...this.states.map(s => Math.max(...s.scores)))
    const slot = WIDTH / Math.max(1, this.players.length)
    const from = (previous && previous.scores) || current.scores
    this.bars.clear()
    this.players.forEach((p, i) => {
      const score = from[i] + (current.scores[i] - from[i]) * progress
      const height = Math.max(0, score) / top * (HEIGHT - 320)
      this.bars.beginFill(current.scores[i] < 0 ? 0x777777 : p.color)
      this.bars.drawRect(slot * (i + 0.5) - slot / 4, HEIGHT - 140 - height, slot / 2, height)
      this.bars.endFill()
    })
    this.frameText.text = 'Take, frame ' + current.number
  }
}
